//! Typed MRZ dates (`YYMMDD`) and the century rules that depend on a reference date.
//!
//! Doc 9303 gives no century rule, so the rules here are this crate's policy, taken relative to
//! the caller's reference date rather than a compiled constant: a birth (or issue) date is the
//! most recent such date not after the reference date; an expiry date lies within 50 years of it.

use crate::date::{Date, days_in_month};

/// How much of an MRZ date is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum DateKind {
    /// Every part is printed and forms a real calendar day.
    Full,
    /// Some parts are fillers (`<`), which Part 3 §4.8 allows for an unknown birth date part.
    Partial,
    /// Every part is a filler.
    Unknown,
    /// Every part is a digit but the day does not exist (month 13, 30 February, `000000`).
    OutOfCalendar,
    /// Characters that are neither digits nor aligned fillers.
    Malformed,
}

/// An MRZ date as printed and as understood.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MrzDate {
    /// The printed characters, e.g. `740812` or `74<<<<`.
    pub raw: String,
    /// How much of the date is known.
    pub kind: DateKind,
    /// The full year after the century rule, when the year digits are printed.
    pub year: Option<i32>,
    /// The month as printed, when printed (may be out of range for `out_of_calendar`).
    pub month: Option<u8>,
    /// The day as printed, when printed (may be out of range for `out_of_calendar`).
    pub day: Option<u8>,
}

impl MrzDate {
    /// The calendar date, only for a [`DateKind::Full`] date.
    pub fn date(&self) -> Option<Date> {
        match (self.kind, self.year, self.month, self.day) {
            (DateKind::Full, Some(year), Some(month), Some(day)) => Date::new(year, month, day),
            _ => None,
        }
    }
}

/// Which century rule a date follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateRole {
    /// Birth and issue dates: the most recent date not after the reference date.
    Past,
    /// Expiry and valid-until dates: within 50 years either side of the reference date.
    Expiry,
}

/// A two-character part: a number when both are digits, `Err(())` when both are fillers.
fn two_digits(chars: &[char]) -> Option<Result<u8, ()>> {
    match chars {
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            let tens = u8::try_from(u32::from(*a) - u32::from('0')).ok()?;
            let units = u8::try_from(u32::from(*b) - u32::from('0')).ok()?;
            Some(Ok(tens * 10 + units))
        }
        ['<', '<'] => Some(Err(())),
        _ => None,
    }
}

/// The full year for the two-digit `yy` under `role`, relative to `reference`.
pub(crate) fn expand_year(
    yy: u8,
    month: Option<u8>,
    day: Option<u8>,
    role: DateRole,
    reference: Date,
) -> i32 {
    let century_base = reference.year - reference.year.rem_euclid(100);
    let mut year = century_base + i32::from(yy);
    match role {
        DateRole::Past => {
            let printed = (year, month.unwrap_or(1), day.unwrap_or(1));
            if printed > (reference.year, reference.month, reference.day) {
                year -= 100;
            }
        }
        DateRole::Expiry => {
            if year > reference.year + 50 {
                year -= 100;
            } else if year < reference.year - 50 {
                year += 100;
            }
        }
    }
    year
}

/// Interprets a printed `YYMMDD` (or `YYMM` for the old French issue date) field.
pub(crate) fn interpret(raw: &[char], role: DateRole, reference: Date) -> MrzDate {
    let raw_text: String = raw.iter().collect();
    let malformed = MrzDate {
        raw: raw_text.clone(),
        kind: DateKind::Malformed,
        year: None,
        month: None,
        day: None,
    };
    if raw.len() != 6 && raw.len() != 4 {
        return malformed;
    }
    let mut parts = Vec::with_capacity(3);
    for pair in raw.chunks(2) {
        match two_digits(pair) {
            Some(part) => parts.push(part.ok()),
            None => return malformed,
        }
    }
    let yy = parts.first().copied().flatten();
    let month = parts.get(1).copied().flatten();
    let day = parts.get(2).copied().flatten();
    let n_known = parts.iter().filter(|part| part.is_some()).count();
    let calendar_month = month.filter(|m| (1..=12).contains(m));
    let calendar_day = day.filter(|d| *d >= 1 && *d <= 31);
    let year = yy.map(|yy| expand_year(yy, calendar_month, calendar_day, role, reference));
    let kind = if n_known == 0 {
        DateKind::Unknown
    } else if n_known < parts.len() {
        DateKind::Partial
    } else {
        let real_day = match (year, month, day) {
            (Some(year), Some(month), Some(day)) => day >= 1 && day <= days_in_month(year, month),
            (Some(_), Some(month), None) => (1..=12).contains(&month),
            _ => false,
        };
        if real_day { DateKind::Full } else { DateKind::OutOfCalendar }
    };
    MrzDate { raw: raw_text, kind, year, month, day }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> Date {
        Date::new(2026, 11, 29).unwrap()
    }

    fn chars(text: &str) -> Vec<char> {
        text.chars().collect()
    }

    #[test]
    fn birth_dates_are_the_most_recent_past() {
        let date = interpret(&chars("740812"), DateRole::Past, reference());
        assert_eq!(date.date(), Date::new(1974, 8, 12));
        let date = interpret(&chars("110101"), DateRole::Past, reference());
        assert_eq!(date.date(), Date::new(2011, 1, 1));
        // Later this year than the reference date means last century.
        let date = interpret(&chars("261230"), DateRole::Past, reference());
        assert_eq!(date.date(), Date::new(1926, 12, 30));
        let date = interpret(&chars("261129"), DateRole::Past, reference());
        assert_eq!(date.date(), Date::new(2026, 11, 29));
    }

    #[test]
    fn expiry_dates_use_a_window() {
        let date = interpret(&chars("950712"), DateRole::Expiry, reference());
        assert_eq!(date.date(), Date::new(1995, 7, 12));
        let date = interpret(&chars("340415"), DateRole::Expiry, reference());
        assert_eq!(date.date(), Date::new(2034, 4, 15));
        let date = interpret(&chars("760101"), DateRole::Expiry, reference());
        assert_eq!(date.date(), Date::new(2076, 1, 1));
        let date = interpret(&chars("770101"), DateRole::Expiry, reference());
        assert_eq!(date.date(), Date::new(1977, 1, 1));
    }

    #[test]
    fn the_reference_date_moves_the_century() {
        let old_reference = Date::new(1990, 6, 1).unwrap();
        let date = interpret(&chars("950712"), DateRole::Expiry, old_reference);
        assert_eq!(date.date(), Date::new(1995, 7, 12));
        let date = interpret(&chars("050101"), DateRole::Past, old_reference);
        assert_eq!(date.date(), Date::new(1905, 1, 1));
    }

    #[test]
    fn partial_unknown_and_out_of_calendar() {
        let date = interpret(&chars("74<<<<"), DateRole::Past, reference());
        assert_eq!((date.kind, date.year, date.month), (DateKind::Partial, Some(1974), None));
        let date = interpret(&chars("<<<<<<"), DateRole::Past, reference());
        assert_eq!((date.kind, date.year), (DateKind::Unknown, None));
        let date = interpret(&chars("741312"), DateRole::Past, reference());
        assert_eq!((date.kind, date.month), (DateKind::OutOfCalendar, Some(13)));
        let date = interpret(&chars("000000"), DateRole::Past, reference());
        assert_eq!(date.kind, DateKind::OutOfCalendar);
        let date = interpret(&chars("230229"), DateRole::Past, reference());
        assert_eq!(date.kind, DateKind::OutOfCalendar);
        let date = interpret(&chars("74O812"), DateRole::Past, reference());
        assert_eq!(date.kind, DateKind::Malformed);
        let date = interpret(&chars("7<0812"), DateRole::Past, reference());
        assert_eq!(date.kind, DateKind::Malformed);
        assert_eq!(date.date(), None);
    }

    #[test]
    fn year_and_month_only() {
        let date = interpret(&chars("1710"), DateRole::Past, reference());
        assert_eq!((date.kind, date.year, date.month), (DateKind::Full, Some(2017), Some(10)));
    }
}
