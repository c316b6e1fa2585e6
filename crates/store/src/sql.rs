//! The one implementation of [`Store`](crate::Store) over SQL, shared by the backends.
//!
//! Both backends accept `$N` placeholders, so the statements are the same text everywhere
//! except where a backend says otherwise ([`SqlDialect`]).
//! The implementation is generated per backend by [`impl_sql_store!`] rather than written
//! generically over `sqlx::Database`, whose trait bounds would outweigh the code; either way,
//! the backends cannot drift apart in behaviour.
//!
//! Every value is bound, never formatted into the SQL, so statements that sqlx logs never
//! contain document fields or owners.

/// What differs between the SQL of the backends.
pub(crate) struct SqlDialect {
    /// The statement that inserts a scan, binding id, owner, created, expires, result and
    /// portrait.
    pub(crate) insert_scan: &'static str,
    /// Whether a database error code means the database is temporarily unable to serve.
    pub(crate) is_transient_code: fn(&str) -> bool,
    /// A statement run after rows were deleted, so that no copy of them is left in the
    /// backend's files (SQLite: its write-ahead log); `None` when a DELETE suffices.
    pub(crate) after_delete: Option<&'static str>,
}

/// Generates `impl Store for $store_type`, given a type with a `pool` field and a
/// `DIALECT: SqlDialect` constant.
macro_rules! impl_sql_store {
    ($store_type:ty) => {
        impl $store_type {
            fn map_error(error: sqlx::Error) -> crate::StoreError {
                crate::error::from_sqlx(error, Self::DIALECT.is_transient_code)
            }

            /// Runs the dialect's clean-up after a delete. The rows are gone either way, so
            /// a clean-up that cannot run now (a busy database) is left to the next one.
            async fn after_delete(&self) {
                if let Some(statement) = Self::DIALECT.after_delete
                    && let Err(error) = sqlx::query(statement).execute(&self.pool).await
                {
                    tracing::warn!(%error, "clean-up after a delete failed");
                }
            }
        }

        #[async_trait::async_trait]
        impl crate::Store for $store_type {
            async fn insert(
                &self,
                new_scan: crate::NewScan,
            ) -> Result<crate::ScanRecord, crate::StoreError> {
                let id = crate::ScanId::generate();
                let created_at_ms = crate::to_unix_millis(std::time::SystemTime::now());
                let expires_at_ms = crate::to_unix_millis(new_scan.retain_until);
                let result_text =
                    serde_json::to_string(&new_scan.result).map_err(crate::StoreError::internal)?;
                sqlx::query(Self::DIALECT.insert_scan)
                    .bind(id.as_str())
                    .bind(new_scan.owner.as_str())
                    .bind(created_at_ms)
                    .bind(expires_at_ms)
                    .bind(result_text)
                    .bind(new_scan.portrait.as_deref())
                    .execute(&self.pool)
                    .await
                    .map_err(Self::map_error)?;
                Ok(crate::ScanRecord {
                    id,
                    owner: new_scan.owner,
                    created_at: crate::from_unix_millis(created_at_ms),
                    expires_at: crate::from_unix_millis(expires_at_ms),
                    result: new_scan.result,
                    has_portrait: new_scan.portrait.is_some(),
                })
            }

            async fn get(
                &self,
                owner: &str,
                id: &str,
                now: std::time::SystemTime,
            ) -> Result<crate::ScanRecord, crate::StoreError> {
                // A malformed id cannot name a scan, so it is answered without a query.
                let scan_id = crate::ScanId::parse(id).ok_or(crate::StoreError::NotFound)?;
                let statement = format!(
                    "SELECT {} FROM scans \
                     WHERE id = $1 AND owner = $2 AND expires_at_ms > $3",
                    crate::rows::SCAN_COLUMNS
                );
                let row = sqlx::query(&statement)
                    .bind(scan_id.as_str())
                    .bind(owner)
                    .bind(crate::to_unix_millis(now))
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(Self::map_error)?
                    .ok_or(crate::StoreError::NotFound)?;
                crate::rows::scan_from_row(&row)
            }

            async fn portrait(
                &self,
                owner: &str,
                id: &str,
                now: std::time::SystemTime,
            ) -> Result<Vec<u8>, crate::StoreError> {
                let scan_id = crate::ScanId::parse(id).ok_or(crate::StoreError::NotFound)?;
                let portrait: Option<Option<Vec<u8>>> = sqlx::query_scalar(
                    "SELECT portrait FROM scans \
                     WHERE id = $1 AND owner = $2 AND expires_at_ms > $3",
                )
                .bind(scan_id.as_str())
                .bind(owner)
                .bind(crate::to_unix_millis(now))
                .fetch_optional(&self.pool)
                .await
                .map_err(Self::map_error)?;
                // No scan and a scan kept without a portrait are the same to the caller.
                portrait.flatten().ok_or(crate::StoreError::NotFound)
            }

            async fn delete(
                &self,
                owner: &str,
                id: &str,
                now: std::time::SystemTime,
            ) -> Result<(), crate::StoreError> {
                let scan_id = crate::ScanId::parse(id).ok_or(crate::StoreError::NotFound)?;
                let outcome = sqlx::query(
                    "DELETE FROM scans WHERE id = $1 AND owner = $2 AND expires_at_ms > $3",
                )
                .bind(scan_id.as_str())
                .bind(owner)
                .bind(crate::to_unix_millis(now))
                .execute(&self.pool)
                .await
                .map_err(Self::map_error)?;
                if outcome.rows_affected() == 0 {
                    return Err(crate::StoreError::NotFound);
                }
                self.after_delete().await;
                Ok(())
            }

            async fn list(
                &self,
                owner: &str,
                now: std::time::SystemTime,
                cursor: Option<&str>,
                limit: u32,
            ) -> Result<crate::Page, crate::StoreError> {
                let page_size = crate::types::clamp_limit(limit);
                let after = cursor.map(crate::cursor::Cursor::decode).transpose()?;
                // One row more than the page tells whether another page follows, so the
                // last page never hands out a cursor to an empty page.
                let fetch_count = i64::from(page_size) + 1;
                let rows = match &after {
                    None => {
                        let statement = format!(
                            "SELECT {} FROM scans \
                             WHERE owner = $1 AND expires_at_ms > $2 \
                             ORDER BY created_at_ms DESC, id DESC LIMIT $3",
                            crate::rows::SCAN_COLUMNS
                        );
                        sqlx::query(&statement)
                            .bind(owner)
                            .bind(crate::to_unix_millis(now))
                            .bind(fetch_count)
                            .fetch_all(&self.pool)
                            .await
                    }
                    Some(after) => {
                        let statement = format!(
                            "SELECT {} FROM scans \
                             WHERE owner = $1 AND expires_at_ms > $2 \
                             AND (created_at_ms < $3 OR (created_at_ms = $3 AND id < $4)) \
                             ORDER BY created_at_ms DESC, id DESC LIMIT $5",
                            crate::rows::SCAN_COLUMNS
                        );
                        sqlx::query(&statement)
                            .bind(owner)
                            .bind(crate::to_unix_millis(now))
                            .bind(after.created_at_ms)
                            .bind(after.id.as_str())
                            .bind(fetch_count)
                            .fetch_all(&self.pool)
                            .await
                    }
                }
                .map_err(Self::map_error)?;
                let mut items =
                    rows.iter().map(crate::rows::scan_from_row).collect::<Result<Vec<_>, _>>()?;
                let has_more = items.len() > page_size as usize;
                items.truncate(page_size as usize);
                let next_cursor = match items.last() {
                    Some(last) if has_more => Some(
                        crate::cursor::Cursor {
                            created_at_ms: crate::to_unix_millis(last.created_at),
                            id: last.id.clone(),
                        }
                        .encode(),
                    ),
                    _ => None,
                };
                Ok(crate::Page { items, next_cursor })
            }

            async fn purge_expired(
                &self,
                now: std::time::SystemTime,
            ) -> Result<u64, crate::StoreError> {
                let outcome = sqlx::query("DELETE FROM scans WHERE expires_at_ms <= $1")
                    .bind(crate::to_unix_millis(now))
                    .execute(&self.pool)
                    .await
                    .map_err(Self::map_error)?;
                sqlx::query("DELETE FROM redeemed_states WHERE expires_at_ms <= $1")
                    .bind(crate::to_unix_millis(now))
                    .execute(&self.pool)
                    .await
                    .map_err(Self::map_error)?;
                if outcome.rows_affected() > 0 {
                    self.after_delete().await;
                }
                Ok(outcome.rows_affected())
            }

            async fn redeem(
                &self,
                nonce: &str,
                expires_at: std::time::SystemTime,
            ) -> Result<bool, crate::StoreError> {
                let outcome = sqlx::query(
                    "INSERT INTO redeemed_states (nonce, expires_at_ms) VALUES ($1, $2) \
                     ON CONFLICT (nonce) DO NOTHING",
                )
                .bind(nonce)
                .bind(crate::to_unix_millis(expires_at))
                .execute(&self.pool)
                .await
                .map_err(Self::map_error)?;
                Ok(outcome.rows_affected() == 1)
            }

            async fn ping(&self) -> Result<(), crate::StoreError> {
                sqlx::query("SELECT 1").execute(&self.pool).await.map_err(Self::map_error)?;
                Ok(())
            }

            async fn create_api_key(
                &self,
                name: &str,
                hash: &str,
            ) -> Result<crate::ApiKeyRecord, crate::StoreError> {
                let id = crate::id::random_id("key_");
                let created_at_ms = crate::to_unix_millis(std::time::SystemTime::now());
                sqlx::query(
                    "INSERT INTO api_keys (id, name, hash, created_at_ms, revoked_at_ms) \
                     VALUES ($1, $2, $3, $4, NULL)",
                )
                .bind(id.as_str())
                .bind(name)
                .bind(hash)
                .bind(created_at_ms)
                .execute(&self.pool)
                .await
                .map_err(Self::map_error)?;
                Ok(crate::ApiKeyRecord {
                    id,
                    name: name.to_owned(),
                    created_at: crate::from_unix_millis(created_at_ms),
                    revoked_at: None,
                })
            }

            async fn list_api_keys(&self) -> Result<Vec<crate::ApiKeyRecord>, crate::StoreError> {
                let statement = format!(
                    "SELECT {} FROM api_keys ORDER BY created_at_ms, id",
                    crate::rows::API_KEY_COLUMNS
                );
                let rows =
                    sqlx::query(&statement).fetch_all(&self.pool).await.map_err(Self::map_error)?;
                rows.iter().map(crate::rows::api_key_from_row).collect()
            }

            async fn revoke_api_key(
                &self,
                name_or_id: &str,
            ) -> Result<crate::ApiKeyRecord, crate::StoreError> {
                let revoked_at_ms = crate::to_unix_millis(std::time::SystemTime::now());
                // An id is tried before a name, so that a key named like another key's id
                // cannot make one command revoke two keys.
                for column in ["id", "name"] {
                    let statement = format!(
                        "UPDATE api_keys SET revoked_at_ms = $1 \
                         WHERE {column} = $2 AND revoked_at_ms IS NULL RETURNING {}",
                        crate::rows::API_KEY_COLUMNS
                    );
                    let row = sqlx::query(&statement)
                        .bind(revoked_at_ms)
                        .bind(name_or_id)
                        .fetch_optional(&self.pool)
                        .await
                        .map_err(Self::map_error)?;
                    if let Some(row) = row {
                        return crate::rows::api_key_from_row(&row);
                    }
                }
                Err(crate::StoreError::NotFound)
            }

            async fn find_api_key_by_hash(
                &self,
                hash: &str,
            ) -> Result<Option<crate::ApiKeyRecord>, crate::StoreError> {
                let statement = format!(
                    "SELECT {} FROM api_keys WHERE hash = $1 AND revoked_at_ms IS NULL",
                    crate::rows::API_KEY_COLUMNS
                );
                let row = sqlx::query(&statement)
                    .bind(hash)
                    .fetch_optional(&self.pool)
                    .await
                    .map_err(Self::map_error)?;
                row.as_ref().map(crate::rows::api_key_from_row).transpose()
            }
        }
    };
}

pub(crate) use impl_sql_store;
