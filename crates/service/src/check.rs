//! `check`: yes/no answers about a document (age, expiry, nationality, whether the printed
//! page agrees with the MRZ) without its fields, for a kept scan or for MRZ lines the caller
//! gives.

use mrtd_mrz::{Comparison, ParseOptions, Printed, PrintedDate, Reading, codes_equivalent};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{AppState, Principal, ServiceError, ops};

/// Oldest age a caller may ask about.
pub const MAX_AGE: u32 = 150;

/// What a caller asks: the document (exactly one of `scan_id` and `lines`) and at least one
/// question.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// A kept scan to check.
    pub scan_id: Option<String>,
    /// MRZ lines to check instead of a kept scan.
    #[schemars(length(min = 1, max = 3))]
    pub lines: Option<Vec<String>>,
    /// Is the holder at least this old today?
    #[schemars(range(max = 150))]
    pub min_age: Option<u32>,
    /// YYYY-MM-DD: is the document unexpired on this date?
    pub valid_on: Option<String>,
    /// ICAO nationality codes; is the holder's one of them?
    pub nationality_in: Option<Vec<String>>,
    /// What the document's page prints (as a person or another reader read it, or as the
    /// holder typed it in a form): does it agree with the MRZ?
    pub printed: Option<PrintedFields>,
}

/// Longest printed name taken, in characters.
const PRINTED_NAME_MAX: usize = 200;
/// Longest other printed field taken (a date, a number, the sex), in characters.
const PRINTED_VALUE_MAX: usize = 40;

/// Fields as the document's page prints them, each compared with the MRZ when given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrintedFields {
    /// The surname as printed, accents and all (`Müller`, `O'Connor`); on a page with one
    /// field for the whole name, that name, with `given_names` left out.
    #[schemars(length(max = PRINTED_NAME_MAX))]
    pub surname: Option<String>,
    /// The given names as printed.
    #[schemars(length(max = PRINTED_NAME_MAX))]
    pub given_names: Option<String>,
    /// The date of birth as printed: `16 APR/AVR 07`, `16.04.2007`, `2007-04-16`, or with
    /// unknown parts as `XX`.
    #[schemars(length(max = PRINTED_VALUE_MAX))]
    pub birth_date: Option<String>,
    /// The date of expiry as printed, in the same forms.
    #[schemars(length(max = PRINTED_VALUE_MAX))]
    pub expiry_date: Option<String>,
    /// The document number as printed (spaces and hyphens are ignored).
    #[schemars(length(max = PRINTED_VALUE_MAX))]
    pub document_number: Option<String>,
    /// The sex as printed: `F`, `M`, `X`, or the page's words (`F/F`, `M/H`).
    #[schemars(length(max = PRINTED_VALUE_MAX))]
    pub sex: Option<String>,
}

impl PrintedFields {
    /// The fields read into the MRZ core's types; a date or sex in no known form is refused,
    /// naming the field.
    fn parse(&self) -> Result<Printed, ServiceError> {
        let too_long = [
            ("surname", &self.surname, PRINTED_NAME_MAX),
            ("given_names", &self.given_names, PRINTED_NAME_MAX),
            ("birth_date", &self.birth_date, PRINTED_VALUE_MAX),
            ("expiry_date", &self.expiry_date, PRINTED_VALUE_MAX),
            ("document_number", &self.document_number, PRINTED_VALUE_MAX),
            ("sex", &self.sex, PRINTED_VALUE_MAX),
        ]
        .into_iter()
        .find(|(_, value, limit)| value.as_ref().is_some_and(|v| v.chars().count() > *limit));
        if let Some((name, _, limit)) = too_long {
            return Err(ServiceError::InvalidInput(format!(
                "'printed.{name}' is longer than {limit} characters"
            )));
        }
        let date = |name: &str, text: &Option<String>| {
            text.as_deref()
                .map(|text| {
                    PrintedDate::parse(text).ok_or_else(|| {
                        ServiceError::InvalidInput(format!(
                            "'printed.{name}' is not a date in a form documents print \
                             (16 APR 2007, 16.04.2007, 2007-04-16)"
                        ))
                    })
                })
                .transpose()
        };
        let sex = self
            .sex
            .as_deref()
            .map(|text| {
                mrtd_mrz::printed_sex(text).ok_or_else(|| {
                    ServiceError::InvalidInput(
                        "'printed.sex' must be F, M or X (or the page's words, such as F/F)"
                            .to_owned(),
                    )
                })
            })
            .transpose()?;
        let printed = Printed {
            surname: self.surname.clone(),
            given_names: self.given_names.clone(),
            birth_date: date("birth_date", &self.birth_date)?,
            expiry_date: date("expiry_date", &self.expiry_date)?,
            document_number: self.document_number.clone(),
            sex,
        };
        if printed == Printed::default() {
            return Err(ServiceError::InvalidInput(
                "'printed' must give at least one field".to_owned(),
            ));
        }
        Ok(printed)
    }
}

/// The answers: whether the check digits hold, and one answer per question asked (`null`
/// when the document does not say, such as a birth date it leaves out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CheckAnswers {
    /// Whether every check digit holds on the lines as printed (or as kept).
    pub check_digits_valid: bool,
    /// Whether the holder is at least `min_age` years old today; only when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_age: Option<Option<bool>>,
    /// Whether the document is unexpired on `valid_on`; only when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid_on: Option<Option<bool>>,
    /// Whether the holder's nationality is one of `nationality_in`; only when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nationality_in: Option<Option<bool>>,
    /// Whether the printed fields given agree with the MRZ (`false` when any differs, `null`
    /// when the MRZ holds none of them); only when `printed` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub viz_matches_mrz: Option<Option<bool>>,
    /// Each printed field given, against the MRZ's: `agrees`, `agrees_truncated` (the MRZ
    /// cut the name), `differs`, `not_in_mrz`, or `uncompared` (a script not transliterated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed_agreement: Option<Comparison>,
}

impl CheckAnswers {
    /// A one-line summary for people, with the answers and no document field.
    pub fn summary(&self) -> String {
        let shown =
            |answer: Option<bool>| answer.map_or("null", |yes| if yes { "true" } else { "false" });
        let answers: Vec<String> = [
            ("min_age", self.min_age),
            ("valid_on", self.valid_on),
            ("nationality_in", self.nationality_in),
            ("viz_matches_mrz", self.viz_matches_mrz),
        ]
        .into_iter()
        .filter_map(|(question, answer)| Some(format!("{question} = {}", shown(answer?))))
        .collect();
        format!("Answers: {}.", answers.join(", "))
    }
}

/// Answers the questions of `request` about the caller's kept scan or the lines given.
///
/// The lines are taken as printed (or as kept): a failing check digit is an answer
/// (`check_digits_valid` false), not an error.
pub async fn check(
    state: &AppState,
    principal: &Principal,
    request: CheckRequest,
) -> Result<CheckAnswers, ServiceError> {
    let questions = Questions::of(&request)?;
    let kept;
    let lines = match (request.scan_id.as_deref(), request.lines.as_deref()) {
        (Some(id), None) => {
            kept = ops::kept_lines(state, principal, id).await?;
            if kept.is_empty() {
                return Err(ServiceError::InvalidInput(
                    "That scan holds no MRZ lines, so nothing can be checked.".to_owned(),
                ));
            }
            &kept
        }
        (None, Some(lines)) => {
            ops::refuse_overlong(lines, "lines")?;
            lines
        }
        _ => {
            return Err(ServiceError::InvalidInput(
                "give exactly one of scan_id and lines".to_owned(),
            ));
        }
    };
    questions.answer(lines)
}

/// Answers the questions of `request` about MRZ lines (what `mrtd check` asks, with no
/// store): as [`check`], with `lines` given here and no `scan_id`.
pub fn check_lines(lines: &[String], request: &CheckRequest) -> Result<CheckAnswers, ServiceError> {
    if request.scan_id.is_some() || request.lines.is_some() {
        return Err(ServiceError::InvalidInput(
            "the lines are given apart from the questions".to_owned(),
        ));
    }
    ops::refuse_overlong(lines, "lines")?;
    Questions::of(request)?.answer(lines)
}

/// The questions of a request, each read into its type and checked.
struct Questions<'a> {
    min_age: Option<u32>,
    valid_on: Option<mrtd_mrz::Date>,
    nationality_in: Option<&'a [String]>,
    printed: Option<Printed>,
}

impl<'a> Questions<'a> {
    fn of(request: &'a CheckRequest) -> Result<Self, ServiceError> {
        if request.min_age.is_some_and(|years| years > MAX_AGE) {
            return Err(ServiceError::InvalidInput(format!(
                "'min_age' must be a whole number from 0 to {MAX_AGE}"
            )));
        }
        let valid_on = match request.valid_on.as_deref() {
            Some(text) => Some(ops::reference_date(Some(text))?),
            None => None,
        };
        let printed = request.printed.as_ref().map(PrintedFields::parse).transpose()?;
        let questions = Questions {
            min_age: request.min_age,
            valid_on,
            nationality_in: request.nationality_in.as_deref(),
            printed,
        };
        if questions.min_age.is_none()
            && questions.valid_on.is_none()
            && questions.nationality_in.is_none()
            && questions.printed.is_none()
        {
            return Err(ServiceError::InvalidInput(
                "ask at least one of min_age, valid_on, nationality_in, printed".to_owned(),
            ));
        }
        Ok(questions)
    }

    /// The answers about `lines`, taken as printed.
    fn answer(&self, lines: &[String]) -> Result<CheckAnswers, ServiceError> {
        let today = crate::today();
        let options = ParseOptions { correct: false, ..ParseOptions::new(today) };
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let reading = mrtd_mrz::parse_text(&lines, &options)
            .map_err(|not_mrz| ServiceError::NotMrz(not_mrz.to_string()))?;
        let mut answers = answer(&reading, self.min_age, self.valid_on, self.nationality_in, today);
        if let Some(printed) = &self.printed {
            let comparison = reading.compare_printed(printed);
            answers.viz_matches_mrz = Some(comparison.matches());
            answers.printed_agreement = Some(comparison);
        }
        Ok(answers)
    }
}

fn answer(
    reading: &Reading,
    min_age: Option<u32>,
    valid_on: Option<mrtd_mrz::Date>,
    nationality_in: Option<&[String]>,
    today: mrtd_mrz::Date,
) -> CheckAnswers {
    CheckAnswers {
        viz_matches_mrz: None,
        printed_agreement: None,
        check_digits_valid: reading.valid,
        min_age: min_age.map(|years| reading.is_at_least(years, today)),
        valid_on: valid_on.map(|date| reading.is_valid_on(date)),
        nationality_in: nationality_in.map(|codes| {
            reading.fields.nationality.as_deref().map(|nationality| {
                codes.iter().any(|code| codes_equivalent(code.trim(), nationality))
            })
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema;

    #[test]
    fn answers_hold_the_questions_asked_and_fit_their_schema() {
        let answers = CheckAnswers {
            check_digits_valid: true,
            min_age: Some(None),
            valid_on: None,
            nationality_in: Some(Some(false)),
            viz_matches_mrz: None,
            printed_agreement: None,
        };
        let value = serde_json::to_value(&answers).unwrap();
        assert_eq!(
            value,
            json!({ "check_digits_valid": true, "min_age": null, "nationality_in": false })
        );
        assert_eq!(answers.summary(), "Answers: min_age = null, nationality_in = false.");
        let output = jsonschema::validator_for(&schema::output::<CheckAnswers>()).unwrap();
        assert!(output.is_valid(&value));
        assert!(!output.is_valid(&json!({ "min_age": true })), "check_digits_valid is required");
        assert!(!output.is_valid(&json!({ "check_digits_valid": true, "valid_on": "yes" })));
    }

    #[test]
    fn the_request_schema_refuses_what_the_service_refuses() {
        let input = schema::input::<CheckRequest>();
        let validator = jsonschema::validator_for(&input).unwrap();
        assert!(validator.is_valid(&json!({ "scan_id": "scn_1", "min_age": 18 })));
        assert!(validator.is_valid(&json!({ "lines": ["a", "b"], "nationality_in": ["D"] })));
        assert!(validator.is_valid(&json!({ "scan_id": "scn_1", "printed": { "sex": "F/F" } })));
        for refused in [
            json!({ "scan_id": "scn_1", "min_age": 151 }),
            json!({ "lines": [], "min_age": 18 }),
            json!({ "lines": ["a", "b", "c", "d"], "min_age": 18 }),
            json!({ "scan_id": "scn_1", "fields": true }),
            json!({ "scan_id": "scn_1", "printed": { "surname": "x".repeat(201) } }),
            json!({ "scan_id": "scn_1", "printed": { "nickname": "Anna" } }),
        ] {
            assert!(!validator.is_valid(&refused), "{refused}");
            let parsed = serde_json::from_value::<CheckRequest>(refused.clone());
            let allowed = parsed.is_ok_and(|request| {
                request.min_age.is_none_or(|years| years <= MAX_AGE)
                    && request.lines.is_none_or(|lines| (1..=3).contains(&lines.len()))
                    && request.printed.is_none_or(|printed| printed.parse().is_ok())
            });
            assert!(!allowed, "the service takes what its schema refuses: {refused}");
        }
    }
}
