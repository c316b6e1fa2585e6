//! The result of reading an MRZ: fields, evidence, corrections and derived answers.
//!
//! With the `serde` feature every type here serialises to the JSON documented in `SCHEMA.md`,
//! which is exactly what `mrtd parse` prints.

use crate::codes::CodeInfo;
use crate::date::{Date, days_in_month};
use crate::layout::{CheckName, FieldName, Format};
use crate::mrz_date::{DateKind, MrzDate};

#[cfg(feature = "serde")]
fn serialize_char<S: serde::Serializer>(c: &char, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(c)
}

#[cfg(feature = "serde")]
fn serialize_opt_char<S: serde::Serializer>(
    c: &Option<char>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match c {
        Some(c) => serializer.collect_str(c),
        None => serializer.serialize_none(),
    }
}

/// Everything read from one MRZ.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reading {
    /// The layout.
    pub format: Format,
    /// The lines after every applied correction.
    pub lines: Vec<String>,
    /// Every check digit the format prints is verified on `lines`.
    pub valid: bool,
    /// The document's fields.
    pub fields: Fields,
    /// The dates as printed and as understood.
    pub dates: Dates,
    /// Issuer and nationality codes, classified.
    pub codes: Codes,
    /// One entry per check digit of the format, printed or not.
    pub checks: Vec<Check>,
    /// For each field, which check digits cover it and what they say.
    pub evidence: Vec<FieldEvidence>,
    /// What a passing check digit cannot rule out.
    pub residual_risk: Vec<ResidualRisk>,
    /// Every character changed from the input, with the reason.
    pub corrections: Vec<Correction>,
    /// With corrections off ([`ParseOptions::correct`](crate::ParseOptions)): the changes the
    /// check digits would support, with their proof, offered and not applied. Empty (and
    /// left out of the JSON) otherwise.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub suggestions: Vec<Correction>,
    /// Places where several readings satisfy the check digits equally; left as read.
    pub ambiguities: Vec<Ambiguity>,
    /// Non-conformities and oddities that do not stop the reading.
    pub warnings: Vec<Warning>,
    /// Answers relative to the reference date.
    pub derived: Derived,
    /// What a national coding of the zone says (the Russian internal passport's names in
    /// Cyrillic); left out of the JSON for zones that follow ICAO 9303 alone.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub national: Option<crate::national::National>,
}

/// The sex cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sex {
    /// `M`.
    Male,
    /// `F`.
    Female,
    /// `<`.
    Unspecified,
    /// Any other character, kept as read (and warned about).
    Other(char),
}

#[cfg(feature = "serde")]
impl serde::Serialize for Sex {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Sex::Male => serializer.serialize_str("M"),
            Sex::Female => serializer.serialize_str("F"),
            Sex::Unspecified => serializer.serialize_str("unspecified"),
            Sex::Other(c) => serializer.collect_str(c),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Sex {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Sex".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "`M`, `F`, `unspecified` (the filler), or any other character as read."
        })
    }
}

/// The document's fields, with fillers removed.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Fields {
    /// Document code, e.g. `P`, `PP`, `I`, `ID`, `V`.
    pub document_code: String,
    /// Issuing state or organisation as printed (`D` for Germany).
    pub issuer: String,
    /// Document number, including the overflow of a long number.
    pub document_number: String,
    /// Nationality as printed; `null` where the format has none (old French ID).
    pub nationality: Option<String>,
    /// Date of birth when complete and real, else `null` (see `dates.birth`).
    pub birth_date: Option<Date>,
    /// Date of expiry when complete and real, else `null` (see `dates.expiry`).
    pub expiry_date: Option<Date>,
    /// Sex.
    pub sex: Sex,
    /// Primary identifier, components separated by spaces.
    pub surname: String,
    /// Secondary identifier, components separated by spaces.
    pub given_names: String,
    /// The name field is filled to its last cell, so the name may have been truncated.
    pub names_possibly_truncated: bool,
    /// Optional data (TD3: personal number); `null` where the format has none.
    pub optional_data: Option<String>,
    /// TD1 only: optional data on line 2.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub optional_data_2: Option<String>,
    /// Old French ID only: issue year and month, `YYYY-MM`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub issue_date: Option<String>,
    /// Old French ID only: issuing department and office.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub issuing_office: Option<String>,
    /// Old French ID only: administrative code at the end of line 1.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub administrative_code: Option<String>,
}

/// Typed dates.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Dates {
    /// Date of birth.
    pub birth: MrzDate,
    /// Date of expiry; `null` where the format has none.
    pub expiry: Option<MrzDate>,
    /// Old French ID only: issue `YYMM`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub issue: Option<MrzDate>,
}

/// Classified codes.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Codes {
    /// The issuer.
    pub issuer: CodeInfo,
    /// The nationality; `null` where the format has none.
    pub nationality: Option<CodeInfo>,
}

/// What a check digit says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CheckStatus {
    /// The printed digit agrees with the characters it covers.
    Verified,
    /// The printed digit disagrees (or is not a digit).
    Refuted,
    /// The format prints no such check digit.
    Absent,
}

/// A run of cells, 1-based, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CellRange {
    /// Line, from 1.
    pub line: usize,
    /// First column, from 1.
    pub from: usize,
    /// Last column, from 1.
    pub to: usize,
}

/// One check digit.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Check {
    /// Which check digit.
    pub name: CheckName,
    /// Its verdict.
    pub status: CheckStatus,
    /// Line of the digit (from 1); `null` when absent.
    pub line: Option<usize>,
    /// Column of the digit (from 1); `null` when absent.
    pub column: Option<usize>,
    /// The printed character.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_opt_char"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub printed: Option<char>,
    /// The digit computed from the covered cells; `null` when one is outside the alphabet.
    pub computed: Option<u8>,
    /// The cells it covers, in the order they are weighted.
    pub covers: Vec<CellRange>,
}

/// How well a field is backed by check digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EvidenceStatus {
    /// Every check digit covering it is verified.
    Verified,
    /// At least one check digit covering it is refuted.
    Refuted,
    /// No check digit covers it: a misread here cannot be detected.
    Uncovered,
}

/// The evidence for one field.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldEvidence {
    /// The field.
    pub field: FieldName,
    /// The verdict.
    pub status: EvidenceStatus,
    /// The check digits that cover it.
    pub checks: Vec<CheckName>,
    /// How likely the field is exactly right, from 0 to 1: the recogniser's probability that
    /// every cell of the field holds what is published, raised by verified check digits and
    /// lowered by a refuted one (see [`Reading::weigh_confidence`]). Typed text is 1 where
    /// its check digits hold or none covers it.
    #[cfg_attr(feature = "schema", schemars(range(min = 0.0, max = 1.0)))]
    pub confidence: f32,
}

/// Something a verified reading could still have wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum ResidualRisk {
    /// No check digit covers this field.
    UncoveredField {
        /// The field.
        field: FieldName,
    },
    /// A covered cell holds a character that a common misread swaps with one of equal value
    /// mod 10, which no check digit can tell apart.
    BlindSubstitution {
        /// The field.
        field: FieldName,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// The character read.
        #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_char"))]
        #[cfg_attr(feature = "schema", schemars(with = "String"))]
        read: char,
        /// What it could also be.
        #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_char"))]
        #[cfg_attr(feature = "schema", schemars(with = "String"))]
        could_be: char,
    },
}

/// Why a character was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Why {
    /// The cell may hold only digits, and this letter is a usual misread of the digit.
    DigitOnlyField,
    /// The cell may hold only letters, and this digit is a usual misread of the letter.
    LetterOnlyField,
    /// The cell lies in the name field's trailing filler run.
    FillerRun,
    /// The change makes the check digits in `proof` agree, and no other equally likely change
    /// does.
    CheckDigit,
    /// A name letter the recogniser was unsure of, replaced by its runner-up, which is far more
    /// usual between the neighbouring letters in personal names (set by the image reader).
    NameLetters,
    /// A look-alike (`O` and `0`, `I` and `1`, `S` and `5`, `B` and `8`, `Z` and `2`, `G` and
    /// `6`) the recogniser ranked otherwise, whose glyph is the document's own print of this
    /// character in cells only it may fill (set by the image reader).
    DocumentGlyphs,
}

impl Why {
    /// Whether the cell's class forced the change (`digit_only_field`, `letter_only_field`).
    pub fn is_forced(self) -> bool {
        matches!(self, Why::DigitOnlyField | Why::LetterOnlyField)
    }
}

/// One changed character.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Correction {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// The character read.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_char"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub from: char,
    /// The character now in `lines`.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_char"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub to: char,
    /// Why.
    pub why: Why,
    /// The check digits that agree only after the change: for `check_digit` those that chose
    /// it, for `digit_only_field` and `letter_only_field` those over the cell that hold only
    /// with the changed character (empty where none does).
    pub proof: Vec<CheckName>,
}

/// A change that one candidate reading would make.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Change {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// The character read.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_char"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub from: char,
    /// The character this reading has.
    #[cfg_attr(feature = "serde", serde(serialize_with = "serialize_char"))]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub to: char,
}

/// One of several readings that satisfy the check digits.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Alternative {
    /// The changes from the lines as read.
    pub changes: Vec<Change>,
    /// The covered text under this reading (e.g. the document number and its check digit).
    pub text: String,
    /// Relative likelihood among the alternatives (they sum to 1).
    pub likelihood: f64,
}

/// Several readings fit; none was applied.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ambiguity {
    /// The check digits involved.
    pub checks: Vec<CheckName>,
    /// The readings that fit, most likely first.
    pub alternatives: Vec<Alternative>,
    /// More readings fit equally than are listed.
    pub truncated: bool,
}

/// A machine-readable warning code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum WarningCode {
    /// The document code does not fit the format (Estonian `RP`, for instance).
    NonconformantDocumentCode,
    /// Issuer or nationality is not a known code.
    UnknownCode,
    /// A character outside the MRZ alphabet remains.
    InvalidCharacter,
    /// The sex cell is not `M`, `F` or `<`.
    NonconformantSex,
    /// A date is partly unknown, out of calendar or malformed.
    UnusualDate,
    /// A check digit is printed as a filler.
    FillerCheckDigit,
    /// Data follows a document number overflow.
    DataAfterOverflow,
    /// A line was padded or trimmed at its end to the format's width.
    LineLengthAdjusted,
    /// Lines around the zone were ignored.
    LinesIgnored,
    /// A name field holds something other than letters and fillers, or a letter after the
    /// fillers that end its names.
    UnusualName,
    /// The document number has a filler with characters after it.
    FillerInsideNumber,
    /// The zone follows a national coding that prints digits where ICAO 9303 puts letters;
    /// see `national`.
    NationalCoding,
    /// Several readings satisfy the check digits; see `ambiguities`.
    Ambiguous,
}

/// A warning.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Warning {
    /// Machine-readable code.
    pub code: WarningCode,
    /// One sentence for a person.
    pub message: String,
    /// Line, from 1, when the warning is about a place.
    pub line: Option<usize>,
    /// Column, from 1, when the warning is about a cell.
    pub column: Option<usize>,
}

/// Answers relative to the reference date.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Derived {
    /// The date the answers are relative to.
    pub reference_date: Date,
    /// The expiry date is before the reference date; `null` without a complete expiry date.
    pub expired: Option<bool>,
    /// Days from the reference date to the expiry date (negative once expired).
    pub days_to_expiry: Option<i64>,
    /// Completed years of age on the reference date; `null` without a complete birth date.
    pub age_years: Option<u32>,
}

impl Reading {
    /// Completed years of age on `on`, or `None` without a complete birth date (or before it).
    pub fn age_on(&self, on: Date) -> Option<u32> {
        self.fields.birth_date?.whole_years_until(on)
    }

    /// Whether the holder is at least `years` old on `on`.
    ///
    /// A partly unknown birth date still answers when every day it could stand for gives the
    /// same answer (born in 1974, month and day unknown, is over 18 in 2026); otherwise `None`.
    pub fn is_at_least(&self, years: u32, on: Date) -> Option<bool> {
        let (earliest, latest) = self.birth_date_bounds()?;
        let youngest = latest.whole_years_until(on).unwrap_or(0);
        let oldest = earliest.whole_years_until(on)?;
        if youngest >= years {
            Some(true)
        } else if oldest < years {
            Some(false)
        } else {
            None
        }
    }

    /// The earliest and latest calendar days the birth date can stand for.
    fn birth_date_bounds(&self) -> Option<(Date, Date)> {
        let birth = &self.dates.birth;
        match birth.kind {
            DateKind::Full => birth.date().map(|date| (date, date)),
            DateKind::Partial => {
                let year = birth.year?;
                let (first_month, last_month) = match birth.month {
                    Some(month) if (1..=12).contains(&month) => (month, month),
                    Some(_) => return None,
                    None => (1, 12),
                };
                let last_day = birth.day.unwrap_or(days_in_month(year, last_month));
                let first_day = birth.day.unwrap_or(1);
                Some((
                    Date::new(year, first_month, first_day)?,
                    Date::new(year, last_month, last_day)?,
                ))
            }
            _ => None,
        }
    }

    /// Whether the document has not expired on `on` (it is valid through its expiry day).
    pub fn is_valid_on(&self, on: Date) -> Option<bool> {
        self.fields.expiry_date.map(|expiry| on <= expiry)
    }

    /// The status of one check digit, `None` when the format does not define it.
    pub fn check(&self, name: CheckName) -> Option<CheckStatus> {
        self.checks.iter().find(|check| check.name == name).map(|check| check.status)
    }
}
