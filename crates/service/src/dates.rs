//! Reference dates: today in UTC, or a date the caller names.

use mrtd_mrz::Date;

/// Today's date in UTC.
pub fn today() -> Date {
    Date::today_utc()
}

/// Parses an optional `YYYY-MM-DD` argument, defaulting to today.
pub(crate) fn reference_date(argument: Option<&str>) -> Result<Date, String> {
    match argument {
        None => Ok(today()),
        Some(text) => Date::parse_iso(text)
            .map_err(|_| format!("'{text}' is not a date: write it as YYYY-MM-DD")),
    }
}
