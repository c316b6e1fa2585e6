//! Decoding rows into records, shared by the backends.

use sqlx::{ColumnIndex, Decode, Row, Type};

use crate::types::from_unix_millis;
use crate::{ApiKeyRecord, ScanId, ScanRecord, StoreError};

/// The columns of `scans` in the order [`scan_from_row`] expects them.
///
/// The reading is selected as text in both backends, so decoding is the same everywhere;
/// of the portrait only whether there is one, as a whole number (0 or 1) in both.
pub(crate) const SCAN_COLUMNS: &str = "id, owner, created_at_ms, expires_at_ms, \
     CAST(result AS TEXT) AS result, \
     CAST(CASE WHEN portrait IS NULL THEN 0 ELSE 1 END AS BIGINT) AS has_portrait";

/// The columns of `api_keys` in the order [`api_key_from_row`] expects them.
pub(crate) const API_KEY_COLUMNS: &str = "id, name, created_at_ms, revoked_at_ms";

/// Reads one column, treating a decoding failure as an internal error.
fn column<'r, R, T>(row: &'r R, column_idx: usize) -> Result<T, StoreError>
where
    R: Row,
    usize: ColumnIndex<R>,
    T: Decode<'r, R::Database> + Type<R::Database>,
{
    row.try_get(column_idx).map_err(StoreError::internal)
}

/// Decodes a row selected with [`SCAN_COLUMNS`].
pub(crate) fn scan_from_row<R>(row: &R) -> Result<ScanRecord, StoreError>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let result_text: String = column(row, 4)?;
    let has_portrait: i64 = column(row, 5)?;
    Ok(ScanRecord {
        id: ScanId::from_trusted(column(row, 0)?),
        owner: column(row, 1)?,
        created_at: from_unix_millis(column(row, 2)?),
        expires_at: from_unix_millis(column(row, 3)?),
        result: serde_json::from_str(&result_text).map_err(StoreError::internal)?,
        has_portrait: has_portrait != 0,
    })
}

/// Decodes a row selected with [`API_KEY_COLUMNS`].
pub(crate) fn api_key_from_row<R>(row: &R) -> Result<ApiKeyRecord, StoreError>
where
    R: Row,
    usize: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
{
    let revoked_at_ms: Option<i64> = column(row, 3)?;
    Ok(ApiKeyRecord {
        id: column(row, 0)?,
        name: column(row, 1)?,
        created_at: from_unix_millis(column(row, 2)?),
        revoked_at: revoked_at_ms.map(from_unix_millis),
    })
}
