//! Calendar dates without a time zone, with the day arithmetic that expiry and age need.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A proleptic Gregorian calendar date.
///
/// Ordering is chronological because the fields are compared year, then month, then day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The full year, e.g. 1974.
    pub year: i32,
    /// The month, 1..=12.
    pub month: u8,
    /// The day of the month, 1..=31.
    pub day: u8,
}

/// Why a string is not an ISO 8601 calendar date.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected a date as YYYY-MM-DD, got {input:?}")]
pub struct DateParseError {
    input: String,
}

/// Whether `year` is a Gregorian leap year.
pub fn is_leap_year(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// The number of days in `month` of `year`, or 0 for a month outside 1..=12.
pub fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

impl Date {
    /// Builds a date when the month and day exist in that year.
    pub fn new(year: i32, month: u8, day: u8) -> Option<Date> {
        (day >= 1 && day <= days_in_month(year, month)).then_some(Date { year, month, day })
    }

    /// Parses `YYYY-MM-DD` (four-digit year) and rejects days that do not exist.
    pub fn parse_iso(text: &str) -> Result<Date, DateParseError> {
        let error = || DateParseError { input: text.to_owned() };
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(error());
        }
        let number = |range: std::ops::Range<usize>| -> Option<u32> {
            let part = text.get(range)?;
            if !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse().ok()
        };
        let year = number(0..4).and_then(|y| i32::try_from(y).ok()).ok_or_else(error)?;
        let month = number(5..7).and_then(|m| u8::try_from(m).ok()).ok_or_else(error)?;
        let day = number(8..10).and_then(|d| u8::try_from(d).ok()).ok_or_else(error)?;
        Date::new(year, month, day).ok_or_else(error)
    }

    /// Today's date in UTC, from the system clock.
    ///
    /// A clock set before 1970 yields 1970-01-01 rather than an error, since a reference date
    /// is always needed and the caller can pass an explicit one.
    pub fn today_utc() -> Date {
        let seconds =
            SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let days = i64::try_from(seconds / 86_400).unwrap_or(0);
        Date::from_days_since_epoch(days)
    }

    /// Days since 1970-01-01 (negative before it), by the usual era-of-400-years method.
    pub fn days_since_epoch(self) -> i64 {
        let month = i64::from(self.month);
        let day = i64::from(self.day);
        let year = i64::from(self.year) - i64::from(month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let shifted_month = (month + 9) % 12;
        let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The inverse of [`Date::days_since_epoch`].
    pub fn from_days_since_epoch(days: i64) -> Date {
        // Clamp to a range where the year fits an i32 comfortably; no MRZ date is near it.
        let days = days.clamp(-100_000_000, 100_000_000) + 719_468;
        let era = days.div_euclid(146_097);
        let day_of_era = days - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let shifted_month = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
        let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        Date {
            year: i32::try_from(year).unwrap_or(1970),
            month: u8::try_from(month).unwrap_or(1),
            day: u8::try_from(day).unwrap_or(1),
        }
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Date) -> i64 {
        later.days_since_epoch() - self.days_since_epoch()
    }

    /// Completed years from `self` (a birth date) to `on`, or `None` when `on` is earlier.
    ///
    /// Someone born on 29 February comes of age on 1 March in common years, the reading most
    /// legal systems use.
    pub fn whole_years_until(self, on: Date) -> Option<u32> {
        if on < self {
            return None;
        }
        let mut years = on.year - self.year;
        if (on.month, on.day) < (self.month, self.day) {
            years -= 1;
        }
        u32::try_from(years).ok()
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Date {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Date {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Date".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_iso_dates() {
        let date = Date::parse_iso("2026-11-29").unwrap();
        assert_eq!(date, Date { year: 2026, month: 11, day: 29 });
        assert_eq!(date.to_string(), "2026-11-29");
        assert!(Date::parse_iso("2026-02-29").is_err());
        assert!(Date::parse_iso("2024-02-29").is_ok());
        assert!(Date::parse_iso("26-11-29").is_err());
        assert!(Date::parse_iso("2026-13-01").is_err());
        assert!(Date::parse_iso("2026-1a-01").is_err());
        assert!(Date::parse_iso("２０２６-11-29").is_err());
    }

    #[test]
    fn epoch_days_round_trip() {
        assert_eq!(Date::new(1970, 1, 1).unwrap().days_since_epoch(), 0);
        assert_eq!(Date::new(2000, 3, 1).unwrap().days_since_epoch(), 11_017);
        assert_eq!(Date::new(1969, 12, 31).unwrap().days_since_epoch(), -1);
        for days in (-80_000..80_000).step_by(37) {
            assert_eq!(Date::from_days_since_epoch(days).days_since_epoch(), days);
        }
    }

    #[test]
    fn completed_years() {
        let birth = Date::new(2008, 11, 30).unwrap();
        assert_eq!(birth.whole_years_until(Date::new(2026, 11, 29).unwrap()), Some(17));
        assert_eq!(birth.whole_years_until(Date::new(2026, 11, 30).unwrap()), Some(18));
        assert_eq!(birth.whole_years_until(Date::new(2000, 1, 1).unwrap()), None);
        let leap = Date::new(2008, 2, 29).unwrap();
        assert_eq!(leap.whole_years_until(Date::new(2026, 2, 28).unwrap()), Some(17));
        assert_eq!(leap.whole_years_until(Date::new(2026, 3, 1).unwrap()), Some(18));
    }

    #[test]
    fn today_is_after_2025() {
        assert!(Date::today_utc().year >= 2025);
    }
}
