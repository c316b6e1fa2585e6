//! The verdict on a result, decided once: whether it may be used without a person looking,
//! what the check digits say, whether the document is in date, and the sentence for people.

use mrtd_engine::Status;
use mrtd_mrz::{CheckStatus, Reading};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The verdict on a result: each question in its own words, decided here once.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Verdict {
    /// The one word for the headline and its colour: `read` (read, every check digit holds,
    /// in date or its expiry unknown), `expired` (read, but the document has expired),
    /// `read_invalid` (read as printed, but a check digit fails: typed lines), `partial`,
    /// `no_mrz`.
    pub headline: Headline,
    /// Whether a pipeline may use the result without a person looking (status `read`).
    pub safe_to_use: bool,
    /// What the check digits say: `all_hold` (every one printed verified on what was seen,
    /// and the result is `valid`), `hold_unproven` (they hold on what was read, but the
    /// reading is not `valid`: see the diagnostics), `refuted` (some fail: `refuted` names
    /// them), `none` (no reading).
    pub check_digits: CheckDigits,
    /// The refuted check digits, in line order (`document_number`, `birth_date`,
    /// `expiry_date`, `optional_data`, `composite`, ...); empty unless `check_digits` is
    /// `refuted`.
    pub refuted: Vec<mrtd_mrz::CheckName>,
    /// `in_date`, `expires_soon` (within 183 days of the reference date), `expired` or
    /// `unknown` (no reading or no complete expiry date).
    pub expiry: Expiry,
    /// The verdict in one English sentence, for people and for a tool result's text.
    pub summary: String,
}

/// The headline's word: see [`Verdict::headline`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Headline {
    /// Read, every check digit holds, in date or its expiry unknown.
    Read,
    /// Read, but the document has expired.
    Expired,
    /// Read as printed, but a check digit fails.
    ReadInvalid,
    /// Found but not read with confidence.
    Partial,
    /// No MRZ.
    NoMrz,
}

/// What the check digits say: see [`Verdict::check_digits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckDigits {
    /// Every printed check digit verified, and the reading is `valid`.
    AllHold,
    /// They hold on what was read, but the reading is not `valid`.
    HoldUnproven,
    /// Some fail.
    Refuted,
    /// No reading.
    None,
}

/// Whether the document is in date: see [`Verdict::expiry`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Expiry {
    /// In date for more than 183 days.
    InDate,
    /// In date, for 183 days or fewer.
    ExpiresSoon,
    /// Expired.
    Expired,
    /// No reading or no complete expiry date.
    Unknown,
}

/// Days before its expiry from which a document "expires soon": six months.
const EXPIRES_SOON_DAYS: i64 = 183;

/// What a verdict is decided from: a result's status, whether its lines were typed, and
/// what its reading says, from the reading itself or from a kept result's JSON.
struct Facts {
    status: Status,
    typed: bool,
    reading: Option<ReadingFacts>,
}

/// What a reading says that the verdict needs.
struct ReadingFacts {
    format: Option<String>,
    valid: bool,
    refuted: Vec<mrtd_mrz::CheckName>,
    expired: Option<bool>,
    days_to_expiry: Option<i64>,
}

impl ReadingFacts {
    fn of(reading: &Reading) -> Self {
        let refuted = reading.checks.iter().filter(|c| c.status == CheckStatus::Refuted);
        let format = serde_json::to_value(reading.format).ok();
        ReadingFacts {
            format: format.as_ref().and_then(Value::as_str).map(str::to_owned),
            valid: reading.valid,
            refuted: refuted.map(|check| check.name).collect(),
            expired: reading.derived.expired,
            days_to_expiry: reading.derived.days_to_expiry,
        }
    }

    /// The same from a result's JSON; `None` without a reading (`format` null).
    fn from_json(result: &serde_json::Map<String, Value>) -> Option<Self> {
        let format = result.get("format")?.as_str()?.to_owned();
        let checks = result.get("checks").and_then(Value::as_array);
        let refuted = checks
            .into_iter()
            .flatten()
            .filter(|check| check["status"] == "refuted")
            .filter_map(|check| serde_json::from_value(check["name"].clone()).ok())
            .collect();
        let derived = result.get("derived");
        let derived = |key: &str| derived.and_then(|d| d.get(key)).cloned().unwrap_or(Value::Null);
        Some(ReadingFacts {
            format: Some(format),
            valid: result.get("valid").and_then(Value::as_bool).unwrap_or(false),
            refuted,
            expired: derived("expired").as_bool(),
            days_to_expiry: derived("days_to_expiry").as_i64(),
        })
    }
}

impl Verdict {
    /// The verdict on a result of `status` with `reading`, read from a photo or `typed`.
    pub(crate) fn of(status: Status, reading: Option<&Reading>, typed: bool) -> Verdict {
        Self::decide(Facts { status, typed, reading: reading.map(ReadingFacts::of) })
    }

    /// The verdict on a result kept before results carried one, from its JSON.
    pub(crate) fn of_kept(result: &serde_json::Map<String, Value>) -> Verdict {
        let status = match result.get("status").and_then(Value::as_str) {
            Some("read") => Status::Read,
            Some("partial") => Status::Partial,
            _ => Status::NoMrz,
        };
        let typed = !result.contains_key("image");
        Self::decide(Facts { status, typed, reading: ReadingFacts::from_json(result) })
    }

    fn decide(facts: Facts) -> Verdict {
        let Facts { status, typed, reading } = facts;
        let refuted = reading.as_ref().map(|r| r.refuted.clone()).unwrap_or_default();
        let check_digits = match &reading {
            None => CheckDigits::None,
            Some(_) if !refuted.is_empty() => CheckDigits::Refuted,
            Some(reading) if reading.valid => CheckDigits::AllHold,
            Some(_) => CheckDigits::HoldUnproven,
        };
        let expiry = match reading.as_ref().map(|r| (r.expired, r.days_to_expiry)) {
            Some((Some(true), _)) => Expiry::Expired,
            Some((Some(false), Some(days))) if days <= EXPIRES_SOON_DAYS => Expiry::ExpiresSoon,
            Some((Some(false), _)) => Expiry::InDate,
            _ => Expiry::Unknown,
        };
        let headline = match status {
            Status::NoMrz => Headline::NoMrz,
            Status::Partial => Headline::Partial,
            Status::Read if check_digits != CheckDigits::AllHold => Headline::ReadInvalid,
            Status::Read if expiry == Expiry::Expired => Headline::Expired,
            Status::Read => Headline::Read,
        };
        let summary =
            Self::sentence(status, reading.as_ref(), typed, check_digits, &refuted, expiry);
        Verdict {
            headline,
            safe_to_use: status == Status::Read,
            check_digits,
            refuted,
            expiry,
            summary,
        }
    }

    fn sentence(
        status: Status,
        reading: Option<&ReadingFacts>,
        typed: bool,
        check_digits: CheckDigits,
        refuted: &[mrtd_mrz::CheckName],
        expiry: Expiry,
    ) -> String {
        // "an MRZ (TD3)", or "an MRZ" when its format is not known: never "a no format MRZ".
        let zone = match reading.and_then(|reading| reading.format.as_deref()) {
            Some(format) => format!("an MRZ ({format})"),
            None => "an MRZ".to_owned(),
        };
        let read = match status {
            Status::NoMrz => return "No machine readable zone was found.".to_owned(),
            _ if typed => format!("Parsed {zone}"),
            Status::Read => format!("Read {zone}"),
            Status::Partial => format!("Found {zone} but could not read it with confidence"),
        };
        let digits = match check_digits {
            CheckDigits::AllHold if status == Status::Read => "every check digit holds".to_owned(),
            CheckDigits::AllHold => {
                "every check digit holds, but the result is not safe to use without looking"
                    .to_owned()
            }
            CheckDigits::HoldUnproven => {
                "the check digits hold on what was read but do not prove it".to_owned()
            }
            CheckDigits::Refuted => {
                let names: Vec<&str> = refuted.iter().map(|name| name.label()).collect();
                format!("the check digit of the {} fails", names.join(" and of the "))
            }
            CheckDigits::None => String::new(),
        };
        let days = reading.and_then(|reading| reading.days_to_expiry).unwrap_or_default();
        let count = |days: i64| if days == 1 { "1 day".to_owned() } else { format!("{days} days") };
        let date = match expiry {
            Expiry::Expired => format!("; the document expired {} ago", count(-days)),
            Expiry::ExpiresSoon => format!("; the document expires in {}", count(days)),
            Expiry::InDate | Expiry::Unknown => String::new(),
        };
        format!("{read}: {digits}{date}.")
    }
}
