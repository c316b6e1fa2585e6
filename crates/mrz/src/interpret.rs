//! Turns a (corrected) grid of characters into fields, check verdicts, evidence and warnings.

use crate::candidates::in_alphabet;
use crate::check_digit::{agrees, compute};
use crate::codes::{classify, known_as_printed};
use crate::date::Date;
use crate::layout::{
    CellClass, CheckName, CheckSpec, FieldName, Format, Layout, Span, field_chars,
};
use crate::mrz_date::{DateKind, DateRole, MrzDate, interpret};
use crate::names::{letter_after_names, single_identifier, split_name_field};
use crate::reading::{
    CellRange, Check, CheckStatus, Codes, Dates, Derived, EvidenceStatus, FieldEvidence, Fields,
    ResidualRisk, Sex, Warning, WarningCode,
};

/// Everything derived from the final grid alone.
pub(crate) struct Interpretation {
    pub(crate) valid: bool,
    pub(crate) fields: Fields,
    pub(crate) dates: Dates,
    pub(crate) codes: Codes,
    pub(crate) checks: Vec<Check>,
    pub(crate) evidence: Vec<FieldEvidence>,
    pub(crate) residual_risk: Vec<ResidualRisk>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) derived: Derived,
    pub(crate) national: Option<crate::national::National>,
}

/// A warning, with its place converted to the 1-based positions the output uses.
fn warning(code: WarningCode, message: String, cell: Option<(usize, usize)>) -> Warning {
    Warning { code, message, line: cell.map(|c| c.0 + 1), column: cell.map(|c| c.1 + 1) }
}

/// A field's value: fillers at either end are padding, not data.
fn strip(chars: &[char]) -> String {
    chars.iter().collect::<String>().trim_matches('<').to_owned()
}

/// A span as the 1-based inclusive range the output uses.
fn range(span: &Span) -> CellRange {
    CellRange { line: span.line + 1, from: span.start + 1, to: span.start + span.len }
}

fn char_at(grid: &[Vec<char>], pos: (usize, usize)) -> Option<char> {
    grid.get(pos.0).and_then(|row| row.get(pos.1)).copied()
}

/// The digit `spec` computes over `grid`; `None` when a covered cell holds a character outside
/// the alphabet, or a letter where only digits stand: it has a value, but no check digit may
/// count it.
fn computed_digit(classes: &[Vec<CellClass>], spec: &CheckSpec, grid: &[Vec<char>]) -> Option<u8> {
    let misplaced_letter = spec.covered_cells().any(|(line, column)| {
        classes.get(line).and_then(|row| row.get(column)) == Some(&CellClass::Digit)
            && char_at(grid, (line, column)).is_some_and(|c| c.is_ascii_uppercase())
    });
    if misplaced_letter { None } else { compute(field_chars(grid, &spec.spans)) }
}

/// Whether the check digit of `spec` is printed in `grid` and agrees with what it covers there.
pub(crate) fn check_holds(
    classes: &[Vec<CellClass>],
    spec: &CheckSpec,
    grid: &[Vec<char>],
) -> bool {
    let printed = spec.digit.and_then(|digit| char_at(grid, digit));
    matches!((printed, computed_digit(classes, spec, grid)), (Some(p), Some(c)) if agrees(p, c))
}

/// Verdicts of every check digit the layout defines, in zone order; absent ones are listed too,
/// so a reader can tell "not printed" from "not checked".
fn evaluate_checks(layout: &Layout, grid: &[Vec<char>], warnings: &mut Vec<Warning>) -> Vec<Check> {
    let mut checks = Vec::new();
    let classes = layout.cell_classes();
    for spec in &layout.checks {
        let covers: Vec<CellRange> = spec.spans.iter().map(range).collect();
        let Some(digit) = spec.digit else {
            checks.push(Check {
                name: spec.name,
                status: CheckStatus::Absent,
                line: None,
                column: None,
                printed: None,
                computed: None,
                covers,
            });
            continue;
        };
        let covered: Vec<char> = field_chars(grid, &spec.spans);
        let computed = computed_digit(&classes, spec, grid);
        let printed = char_at(grid, digit);
        let verified = matches!((printed, computed), (Some(p), Some(c)) if agrees(p, c));
        // Doc 9303 allows `<` as the check digit of an empty personal number (TD3 position 43);
        // anywhere else a filler check digit is an issuer's deviation worth a warning.
        let empty_field = covered.iter().all(|c| *c == '<');
        if printed == Some('<') && !(spec.name == CheckName::OptionalData && empty_field) {
            warnings.push(warning(
                WarningCode::FillerCheckDigit,
                format!("the {} check digit is printed as a filler", check_label(spec.name)),
                Some(digit),
            ));
        }
        checks.push(Check {
            name: spec.name,
            status: if verified { CheckStatus::Verified } else { CheckStatus::Refuted },
            line: Some(digit.0 + 1),
            column: Some(digit.1 + 1),
            printed,
            computed,
            covers,
        });
    }
    checks
}

/// The check digit's name in warning sentences.
pub(crate) fn check_label(name: CheckName) -> &'static str {
    match name {
        CheckName::DocumentNumber => "document number",
        CheckName::BirthDate => "birth date",
        CheckName::ExpiryDate => "expiry date",
        CheckName::OptionalData => "optional data",
        CheckName::Composite => "composite",
    }
}

/// Per-field evidence from the check verdicts, and the residual risk a verified reading keeps:
/// fields nothing covers, and covered cells whose usual misread no check digit would notice.
fn evidence_and_risk(
    layout: &Layout,
    grid: &[Vec<char>],
    checks: &[Check],
) -> (Vec<FieldEvidence>, Vec<ResidualRisk>) {
    let mut evidence = Vec::new();
    let mut risk = Vec::new();
    for spec in &layout.fields {
        let cells: Vec<(usize, usize)> = spec.cells().collect();
        let covering: Vec<CheckName> = layout
            .checks
            .iter()
            .filter(|check| check.digit.is_some())
            .filter(|check| check.covered_cells().any(|pos| cells.contains(&pos)))
            .map(|check| check.name)
            .collect();
        let refuted = checks
            .iter()
            .any(|check| covering.contains(&check.name) && check.status == CheckStatus::Refuted);
        let status = if covering.is_empty() {
            EvidenceStatus::Uncovered
        } else if refuted {
            EvidenceStatus::Refuted
        } else {
            EvidenceStatus::Verified
        };
        // On every ICAO format one name field holds both identifiers, so both share its evidence.
        let names: &[FieldName] =
            if spec.name == FieldName::Surname && layout.format != Format::FraId {
                &[FieldName::Surname, FieldName::GivenNames]
            } else {
                std::slice::from_ref(&spec.name)
            };
        for name in names {
            evidence.push(FieldEvidence {
                field: *name,
                status,
                checks: covering.clone(),
                confidence: 1.0,
            });
            if status == EvidenceStatus::Uncovered {
                risk.push(ResidualRisk::UncoveredField { field: *name });
            }
        }
        // Only alphanumeric cells can hold both members of a blind pair; uncovered fields are
        // already reported whole.
        if covering.is_empty() || spec.class != CellClass::Alnum {
            continue;
        }
        let field_text: Vec<char> = field_chars(grid, &spec.spans);
        let last_value = field_text.iter().rposition(|c| *c != '<').unwrap_or(0);
        for (idx, pos) in cells.iter().enumerate() {
            let partner = match field_text.get(idx) {
                Some('1') => 'L',
                Some('L') => '1',
                Some('6') => 'G',
                Some('G') => '6',
                Some('K') => '<',
                // A filler inside a value (not trailing) could be a `K` that was lost.
                Some('<') if idx < last_value && idx > 0 => 'K',
                _ => continue,
            };
            risk.push(ResidualRisk::BlindSubstitution {
                field: spec.name,
                line: pos.0 + 1,
                column: pos.1 + 1,
                read: field_text[idx],
                could_be: partner,
            });
        }
    }
    evidence.sort_by_key(|item| item.field);
    (evidence, risk)
}

/// Whether the document code is one Doc 9303 allows for the format (TD1/TD2: `I`, `A` or `C`
/// first, never `V` second). Real documents deviate (Estonian `RP`), so this only warns.
fn document_code_conforms(format: Format, code: &[char]) -> bool {
    let first = code.first().copied().unwrap_or('<');
    let second = code.get(1).copied().unwrap_or('<');
    match format {
        Format::Td3 => first == 'P',
        Format::MrvA | Format::MrvB => first == 'V',
        Format::Td1 | Format::Td2 => matches!(first, 'I' | 'A' | 'C') && second != 'V',
        Format::FraId => code == ['I', 'D'],
    }
}

/// A sentence for a date that is not a complete calendar day; fillers are allowed only in a
/// birth date (Part 3 §4.8), so they are a deviation in an expiry or issue date.
fn date_warning(date: &MrzDate, what: &str, expiry: bool) -> Option<String> {
    match date.kind {
        DateKind::Full => None,
        DateKind::Partial | DateKind::Unknown if expiry => {
            Some(format!("the {what} {} holds fillers, which Doc 9303 does not allow", date.raw))
        }
        DateKind::Partial => Some(format!("the {what} {} is partly unknown", date.raw)),
        DateKind::Unknown => Some(format!("the {what} is unknown")),
        DateKind::OutOfCalendar => Some(format!("the {what} {} is not a calendar date", date.raw)),
        DateKind::Malformed => Some(format!("the {what} {} is malformed", date.raw)),
    }
}

/// A grid with its layout: the characters and first cell of each field.
struct Zone<'a> {
    layout: &'a Layout,
    grid: &'a [Vec<char>],
}

impl Zone<'_> {
    /// The characters of field `name`; `None` when the format has no such field.
    fn chars_of(&self, name: FieldName) -> Option<Vec<char>> {
        self.layout.field(name).map(|spec| field_chars(self.grid, &spec.spans))
    }

    /// The first cell of field `name`, where its warnings point.
    fn first_cell(&self, name: FieldName) -> Option<(usize, usize)> {
        self.layout.field(name).and_then(|spec| spec.spans.first()).map(|s| (s.line, s.start))
    }
}

/// The document code, issuer and nationality as read, with what is known of the codes.
struct CodeFields {
    code_chars: Vec<char>,
    issuer: String,
    nationality: Option<String>,
    codes: Codes,
}

/// Reads the document code and the state codes, warning of a document code that does not
/// conform to the format and of a state code that is not known.
fn read_codes(zone: &Zone<'_>, warnings: &mut Vec<Warning>) -> CodeFields {
    let format = zone.layout.format;
    let code_chars = zone.chars_of(FieldName::DocumentCode).unwrap_or_default();
    if !document_code_conforms(format, &code_chars) {
        warnings.push(warning(
            WarningCode::NonconformantDocumentCode,
            format!(
                "document code {:?} does not conform to {}",
                code_chars.iter().collect::<String>(),
                format.as_str()
            ),
            zone.first_cell(FieldName::DocumentCode),
        ));
    }
    let issuer_cells = zone.chars_of(FieldName::Issuer).unwrap_or_default();
    let nationality_cells = zone.chars_of(FieldName::Nationality);
    let issuer = strip(&issuer_cells);
    let nationality = nationality_cells.as_deref().map(strip);
    let issuer_info = classify(&issuer);
    let nationality_info = nationality.as_deref().map(classify);
    // No check digit covers these codes, so an unknown one is the only hint of a misread.
    for (cells, name) in [
        (Some(&issuer_cells), FieldName::Issuer),
        (nationality_cells.as_ref(), FieldName::Nationality),
    ] {
        let Some(printed) = cells.map(|chars| chars.iter().collect::<String>()) else { continue };
        if !known_as_printed(&printed) {
            warnings.push(warning(
                WarningCode::UnknownCode,
                format!(
                    "{:?} is not a known state or organisation code",
                    printed.trim_end_matches('<')
                ),
                zone.first_cell(name),
            ));
        }
    }
    let codes = Codes { issuer: issuer_info, nationality: nationality_info };
    CodeFields { code_chars, issuer, nationality, codes }
}

/// Reads the document number, warning of a filler inside it.
fn read_document_number(zone: &Zone<'_>, warnings: &mut Vec<Warning>) -> String {
    // Trailing fillers of a short number (`HA672242<`) are padding, never data.
    let number_chars = zone.chars_of(FieldName::DocumentNumber).unwrap_or_default();
    let document_number = number_chars.iter().collect::<String>().trim_end_matches('<').to_owned();
    // A number is written from the first cell and padded at its end; a filler with
    // characters after it fits few issuers' numbering (German provisional identity cards
    // print `Q<0000000`), and is most often a misread.
    if document_number.contains('<') {
        warnings.push(warning(
            WarningCode::FillerInsideNumber,
            format!("the document number {document_number:?} has a filler inside it"),
            zone.first_cell(FieldName::DocumentNumber),
        ));
    }
    document_number
}

/// Reads the dates relative to `reference`, warning of any that is unusual.
fn read_dates(zone: &Zone<'_>, reference: Date, warnings: &mut Vec<Warning>) -> Dates {
    let birth = interpret(
        &zone.chars_of(FieldName::BirthDate).unwrap_or_default(),
        DateRole::Past,
        reference,
    );
    let expiry = zone
        .chars_of(FieldName::ExpiryDate)
        .map(|raw| interpret(&raw, DateRole::Expiry, reference));
    let issue =
        zone.chars_of(FieldName::IssueDate).map(|raw| interpret(&raw, DateRole::Past, reference));
    if let Some(message) = date_warning(&birth, "birth date", false) {
        warnings.push(warning(
            WarningCode::UnusualDate,
            message,
            zone.first_cell(FieldName::BirthDate),
        ));
    }
    if let Some(message) = expiry.as_ref().and_then(|date| date_warning(date, "expiry date", true))
    {
        warnings.push(warning(
            WarningCode::UnusualDate,
            message,
            zone.first_cell(FieldName::ExpiryDate),
        ));
    }
    if let Some(message) = issue.as_ref().and_then(|date| date_warning(date, "issue date", true)) {
        warnings.push(warning(
            WarningCode::UnusualDate,
            message,
            zone.first_cell(FieldName::IssueDate),
        ));
    }
    Dates { birth, expiry, issue }
}

/// Reads the sex, warning of a character other than `M`, `F` or `<`.
fn read_sex(zone: &Zone<'_>, warnings: &mut Vec<Warning>) -> Sex {
    let sex_char =
        zone.chars_of(FieldName::Sex).and_then(|chars| chars.first().copied()).unwrap_or('<');
    match sex_char {
        'M' => Sex::Male,
        'F' => Sex::Female,
        '<' => Sex::Unspecified,
        other => {
            warnings.push(warning(
                WarningCode::NonconformantSex,
                format!("sex is printed as {other:?}, not M, F or <"),
                zone.first_cell(FieldName::Sex),
            ));
            Sex::Other(other)
        }
    }
}

/// The holder's names as read.
struct Names {
    surname: String,
    given_names: String,
    possibly_truncated: bool,
}

/// Reads the names, warning of a national coding and of characters a name does not hold.
fn read_names(zone: &Zone<'_>, warnings: &mut Vec<Warning>) -> Names {
    let format = zone.layout.format;
    // The old French card keeps surname and given names in separate fields on separate lines.
    let name_chars = zone.chars_of(FieldName::Surname).unwrap_or_default();
    let (surname, given_names, possibly_truncated) = if format == Format::FraId {
        let (surname, surname_full) = single_identifier(&name_chars);
        let given_chars = zone.chars_of(FieldName::GivenNames).unwrap_or_default();
        let (given, given_full) = single_identifier(&given_chars);
        (surname, given, surname_full || given_full)
    } else {
        let names = split_name_field(&name_chars);
        (names.surname, names.given_names, names.possibly_truncated)
    };
    let given_chars = zone.chars_of(FieldName::GivenNames).unwrap_or_default();
    let coded_digits = zone.layout.national.map_or("", |variant| variant.name_digits());
    if let Some(variant) = zone.layout.national {
        warnings.push(warning(
            WarningCode::NationalCoding,
            format!("the zone is {}", variant.description()),
            Some((0, 0)),
        ));
    }
    let in_a_name = |c: &char| c.is_ascii_uppercase() || *c == '<' || coded_digits.contains(*c);
    if name_chars.iter().chain(&given_chars).any(|c| !in_a_name(c)) {
        warnings.push(warning(
            WarningCode::UnusualName,
            "the name field holds characters other than letters and fillers".to_owned(),
            zone.first_cell(FieldName::Surname),
        ));
    } else if let Some(idx) = letter_after_names(&name_chars).filter(|_| format != Format::FraId) {
        warnings.push(warning(
            WarningCode::UnusualName,
            format!(
                "character {} of the name field, {:?}, follows the fillers that end the names",
                idx + 1,
                name_chars[idx]
            ),
            zone.first_cell(FieldName::Surname),
        ));
    }
    Names { surname, given_names, possibly_truncated }
}

/// Warns of optional data after a long document number and of characters outside the MRZ
/// alphabet.
fn check_overflow_and_alphabet(zone: &Zone<'_>, warnings: &mut Vec<Warning>) {
    // Part 11 puts only fillers after a long number's check digit (cheminfo/mrz#36).
    if let Some((line, column)) = zone.layout.overflow_marker {
        let rest =
            zone.chars_of(FieldName::OptionalData).map(|chars| strip(&chars)).unwrap_or_default();
        if !rest.is_empty() {
            warnings.push(warning(
                WarningCode::DataAfterOverflow,
                format!("optional data {rest:?} follows the long document number"),
                Some((line, column)),
            ));
        }
    }

    for (line_idx, row) in zone.grid.iter().enumerate() {
        for (column, c) in row.iter().enumerate() {
            if !in_alphabet(*c) {
                warnings.push(warning(
                    WarningCode::InvalidCharacter,
                    format!("{c:?} is not an MRZ character"),
                    Some((line_idx, column)),
                ));
            }
        }
    }
}

/// Interprets `grid` (already of `layout`'s shape) relative to `reference`.
pub(crate) fn interpret_grid(
    layout: &Layout,
    grid: &[Vec<char>],
    reference: Date,
) -> Interpretation {
    let format = layout.format;
    let zone = Zone { layout, grid };
    let mut warnings = Vec::new();

    // `valid` is about the arithmetic only: absent digits neither help nor hurt.
    let checks = evaluate_checks(layout, grid, &mut warnings);
    let valid = checks.iter().all(|check| check.status != CheckStatus::Refuted);

    let CodeFields { code_chars, issuer, nationality, codes } = read_codes(&zone, &mut warnings);
    let document_number = read_document_number(&zone, &mut warnings);
    let dates = read_dates(&zone, reference, &mut warnings);
    let sex = read_sex(&zone, &mut warnings);
    let names = read_names(&zone, &mut warnings);
    check_overflow_and_alphabet(&zone, &mut warnings);

    let strip_field = |name: FieldName| zone.chars_of(name).map(|chars| strip(&chars));
    let optional_data = match format {
        Format::FraId => None,
        _ => Some(strip_field(FieldName::OptionalData).unwrap_or_default()),
    };
    let fields = Fields {
        document_code: code_chars.iter().filter(|c| **c != '<').collect(),
        issuer,
        document_number,
        nationality,
        birth_date: dates.birth.date(),
        expiry_date: dates.expiry.as_ref().and_then(MrzDate::date),
        sex,
        surname: names.surname,
        given_names: names.given_names,
        names_possibly_truncated: names.possibly_truncated,
        optional_data,
        optional_data_2: strip_field(FieldName::OptionalData2),
        issue_date: dates.issue.as_ref().and_then(|date| {
            match (date.kind, date.year, date.month) {
                (DateKind::Full, Some(year), Some(month)) => Some(format!("{year:04}-{month:02}")),
                _ => None,
            }
        }),
        issuing_office: strip_field(FieldName::IssuingOffice),
        administrative_code: strip_field(FieldName::AdministrativeCode),
    };
    let (evidence, residual_risk) = evidence_and_risk(layout, grid, &checks);
    let derived = Derived {
        reference_date: reference,
        expired: fields.expiry_date.map(|expiry| reference > expiry),
        days_to_expiry: fields.expiry_date.map(|expiry| reference.days_until(expiry)),
        age_years: fields.birth_date.and_then(|birth| birth.whole_years_until(reference)),
    };
    let national = layout.national.map(|variant| {
        let optional = fields.optional_data.as_deref().unwrap_or_default();
        variant.read(&fields.surname, &fields.given_names, &fields.document_number, optional)
    });
    Interpretation {
        national,
        valid,
        fields,
        dates,
        codes,
        checks,
        evidence,
        residual_risk,
        warnings,
        derived,
    }
}
