//! Field and check-digit positions of each format (ICAO 9303 Parts 4-7, and the old French ID).
//!
//! Positions are written 1-based as in the standard and stored 0-based. The layout of TD1 and
//! TD2 depends on the characters when the document number overflows into the optional data.

/// The MRZ layout a reading follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Format {
    /// ID cards, 3 lines of 30.
    #[cfg_attr(feature = "serde", serde(rename = "TD1"))]
    Td1,
    /// Official travel documents, 2 lines of 36.
    #[cfg_attr(feature = "serde", serde(rename = "TD2"))]
    Td2,
    /// Passports, 2 lines of 44.
    #[cfg_attr(feature = "serde", serde(rename = "TD3"))]
    Td3,
    /// Visas, 2 lines of 44.
    #[cfg_attr(feature = "serde", serde(rename = "MRVA"))]
    MrvA,
    /// Visas, 2 lines of 36.
    #[cfg_attr(feature = "serde", serde(rename = "MRVB"))]
    MrvB,
    /// French national identity card issued before 2021, 2 lines of 36.
    #[cfg_attr(feature = "serde", serde(rename = "FRA_ID"))]
    FraId,
}

impl Format {
    /// The name used in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Td1 => "TD1",
            Format::Td2 => "TD2",
            Format::Td3 => "TD3",
            Format::MrvA => "MRVA",
            Format::MrvB => "MRVB",
            Format::FraId => "FRA_ID",
        }
    }

    /// Line count and line width.
    pub fn shape(self) -> (usize, usize) {
        match self {
            Format::Td1 => (3, 30),
            Format::Td2 | Format::MrvB | Format::FraId => (2, 36),
            Format::Td3 | Format::MrvA => (2, 44),
        }
    }
}

/// A field of the document, as named in the JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FieldName {
    /// Document code (`P`, `I`, `V`, ...).
    DocumentCode,
    /// Issuing state or organisation.
    Issuer,
    /// Primary identifier.
    Surname,
    /// Secondary identifier.
    GivenNames,
    /// Document number, including an overflow.
    DocumentNumber,
    /// Nationality.
    Nationality,
    /// Date of birth.
    BirthDate,
    /// Sex.
    Sex,
    /// Date of expiry (valid-until for visas).
    ExpiryDate,
    /// Optional data (personal number on TD3, optional data 1 on TD1).
    OptionalData,
    /// TD1 optional data on line 2.
    OptionalData2,
    /// Old French ID: administrative code at the end of line 1.
    AdministrativeCode,
    /// Old French ID: issue year and month.
    IssueDate,
    /// Old French ID: issuing office (department and office).
    IssuingOffice,
}

/// A check digit, as named in the JSON output (and read back from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CheckName {
    /// Over the document number (the whole number when it overflows).
    DocumentNumber,
    /// Over the date of birth.
    BirthDate,
    /// Over the date of expiry.
    ExpiryDate,
    /// Over TD3 optional data (the personal number).
    OptionalData,
    /// Over most of the zone.
    Composite,
}

impl CheckName {
    /// The check digit's name in words, for messages.
    pub fn label(self) -> &'static str {
        crate::interpret::check_label(self)
    }
}

/// Which characters a cell may hold, which decides how a misread is corrected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellClass {
    /// Digits; the filler is tolerated (unknown birth date parts, empty-field check digits).
    Digit,
    /// Letters and the filler (codes, names).
    Letter,
    /// Letters, digits and the filler (document number, optional data).
    Alnum,
    /// The sex cell: `M`, `F` or `<`.
    Sex,
}

/// A run of cells on one line (0-based line and start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) line: usize,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

impl Span {
    /// From 1-based inclusive positions, as the standard writes them.
    const fn at(line: usize, first: usize, last: usize) -> Span {
        Span { line: line - 1, start: first - 1, len: last + 1 - first }
    }

    pub(crate) fn cells(self) -> impl Iterator<Item = (usize, usize)> {
        (self.start..self.start + self.len).map(move |column| (self.line, column))
    }
}

/// Where a field lies and which check digits cover it.
#[derive(Debug, Clone)]
pub(crate) struct FieldSpec {
    pub(crate) name: FieldName,
    pub(crate) spans: Vec<Span>,
    pub(crate) class: CellClass,
}

impl FieldSpec {
    /// The field's cells, as (line, column) from 0, in reading order.
    pub(crate) fn cells(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.spans.iter().flat_map(|span| span.cells())
    }
}

/// Where a check digit lies and what it covers; `digit: None` when the format has none.
#[derive(Debug, Clone)]
pub(crate) struct CheckSpec {
    pub(crate) name: CheckName,
    pub(crate) spans: Vec<Span>,
    pub(crate) digit: Option<(usize, usize)>,
}

impl CheckSpec {
    pub(crate) fn covered_cells(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.spans.iter().flat_map(|span| span.cells())
    }
}

/// The complete layout of one reading.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub(crate) format: Format,
    pub(crate) fields: Vec<FieldSpec>,
    pub(crate) checks: Vec<CheckSpec>,
    /// The `<` cell that marks a document number overflow (TD1 line 1 pos 15, TD2 line 2 pos 10).
    pub(crate) overflow_marker: Option<(usize, usize)>,
    /// The national coding the zone uses, if any.
    pub(crate) national: Option<crate::national::NationalVariant>,
}

fn field(name: FieldName, class: CellClass, spans: &[Span]) -> FieldSpec {
    FieldSpec { name, spans: spans.to_vec(), class }
}

fn check(name: CheckName, spans: &[Span], digit: Option<(usize, usize)>) -> CheckSpec {
    CheckSpec { name, spans: spans.to_vec(), digit }
}

/// The overflow part of a long document number: cells from `first` up to the first filler (or
/// `last`), the final one of which is the check digit. `None` when the first cell is a filler.
fn overflow(line: &[char], first: usize, last: usize) -> Option<(usize, usize)> {
    if line.get(first).is_none_or(|c| *c == '<') {
        return None;
    }
    let end = (first..=last).find(|idx| line.get(*idx) == Some(&'<')).unwrap_or(last + 1);
    Some((first, end - 1))
}

/// The fields, checks and overflow marker of one format, before the national coding is applied.
struct ZoneLayout {
    fields: Vec<FieldSpec>,
    checks: Vec<CheckSpec>,
    overflow_marker: Option<(usize, usize)>,
}

/// Line `idx` of the grid, empty when the grid has no such line.
fn grid_line(grid: &[Vec<char>], idx: usize) -> &[char] {
    grid.get(idx).map_or(&[], Vec::as_slice)
}

/// The two-line formats (TD3, TD2 and the visas MRV-A and MRV-B), with TD2's long document
/// number when line 2 position 10 marks it.
fn two_line_layout(format: Format, grid: &[Vec<char>]) -> ZoneLayout {
    use CellClass::{Alnum, Digit, Letter, Sex};
    use FieldName as F;
    let mut overflow_marker = None;
    let width = if matches!(format, Format::Td3 | Format::MrvA) { 44 } else { 36 };
    let mut fields = vec![
        field(F::DocumentCode, Letter, &[Span::at(1, 1, 2)]),
        field(F::Issuer, Letter, &[Span::at(1, 3, 5)]),
        field(F::Surname, Letter, &[Span::at(1, 6, width)]),
        field(F::Nationality, Letter, &[Span::at(2, 11, 13)]),
        field(F::BirthDate, Digit, &[Span::at(2, 14, 19)]),
        field(F::Sex, Sex, &[Span::at(2, 21, 21)]),
        field(F::ExpiryDate, Digit, &[Span::at(2, 22, 27)]),
    ];
    let optional_end = match format {
        Format::Td3 => 42,
        Format::Td2 => 35,
        _ => width,
    };
    let long_number = (format == Format::Td2 && grid_line(grid, 1).get(9) == Some(&'<'))
        .then(|| overflow(grid_line(grid, 1), 28, optional_end - 1))
        .flatten();
    let mut number_spans = vec![Span::at(2, 1, 9)];
    let mut number_digit = (1, 9);
    let mut optional_start = 29;
    if let Some((first, digit_idx)) = long_number {
        overflow_marker = Some((1, 9));
        if digit_idx > first {
            number_spans.push(Span { line: 1, start: first, len: digit_idx - first });
        }
        number_digit = (1, digit_idx);
        optional_start = digit_idx + 2;
    }
    fields.push(field(F::DocumentNumber, Alnum, &number_spans));
    if optional_start <= optional_end {
        fields.push(field(F::OptionalData, Alnum, &[Span::at(2, optional_start, optional_end)]));
    }
    let mut checks = vec![
        check(CheckName::DocumentNumber, &number_spans, Some(number_digit)),
        check(CheckName::BirthDate, &[Span::at(2, 14, 19)], Some((1, 19))),
        check(CheckName::ExpiryDate, &[Span::at(2, 22, 27)], Some((1, 27))),
    ];
    match format {
        Format::Td3 => {
            checks.push(check(CheckName::OptionalData, &[Span::at(2, 29, 42)], Some((1, 42))));
            checks.push(check(
                CheckName::Composite,
                &[Span::at(2, 1, 10), Span::at(2, 14, 20), Span::at(2, 22, 43)],
                Some((1, 43)),
            ));
        }
        Format::Td2 => checks.push(check(
            CheckName::Composite,
            &[Span::at(2, 1, 10), Span::at(2, 14, 20), Span::at(2, 22, 35)],
            Some((1, 35)),
        )),
        _ => checks.push(check(CheckName::Composite, &[], None)),
    }
    ZoneLayout { fields, checks, overflow_marker }
}

/// TD1, with the long document number when line 1 position 15 marks it.
fn td1_layout(grid: &[Vec<char>]) -> ZoneLayout {
    use CellClass::{Alnum, Digit, Letter, Sex};
    use FieldName as F;
    let mut overflow_marker = None;
    let mut fields = vec![
        field(F::DocumentCode, Letter, &[Span::at(1, 1, 2)]),
        field(F::Issuer, Letter, &[Span::at(1, 3, 5)]),
        field(F::BirthDate, Digit, &[Span::at(2, 1, 6)]),
        field(F::Sex, Sex, &[Span::at(2, 8, 8)]),
        field(F::ExpiryDate, Digit, &[Span::at(2, 9, 14)]),
        field(F::Nationality, Letter, &[Span::at(2, 16, 18)]),
        field(F::OptionalData2, Alnum, &[Span::at(2, 19, 29)]),
        field(F::Surname, Letter, &[Span::at(3, 1, 30)]),
    ];
    let long_number = (grid_line(grid, 0).get(14) == Some(&'<'))
        .then(|| overflow(grid_line(grid, 0), 15, 29))
        .flatten();
    let mut number_spans = vec![Span::at(1, 6, 14)];
    let mut number_digit = (0, 14);
    let mut optional_start = 16;
    if let Some((first, digit_idx)) = long_number {
        overflow_marker = Some((0, 14));
        if digit_idx > first {
            number_spans.push(Span { line: 0, start: first, len: digit_idx - first });
        }
        number_digit = (0, digit_idx);
        optional_start = digit_idx + 2;
    }
    fields.push(field(F::DocumentNumber, Alnum, &number_spans));
    if optional_start <= 30 {
        fields.push(field(F::OptionalData, Alnum, &[Span::at(1, optional_start, 30)]));
    }
    let checks = vec![
        check(CheckName::DocumentNumber, &number_spans, Some(number_digit)),
        check(CheckName::BirthDate, &[Span::at(2, 1, 6)], Some((1, 6))),
        check(CheckName::ExpiryDate, &[Span::at(2, 9, 14)], Some((1, 14))),
        check(
            CheckName::Composite,
            &[Span::at(1, 6, 30), Span::at(2, 1, 7), Span::at(2, 9, 15), Span::at(2, 19, 29)],
            Some((1, 29)),
        ),
    ];
    ZoneLayout { fields, checks, overflow_marker }
}

/// The French national identity card issued before 2021 (2 lines of 36).
fn french_id_layout() -> ZoneLayout {
    use CellClass::{Alnum, Digit, Letter, Sex};
    use FieldName as F;
    let fields = vec![
        field(F::DocumentCode, Letter, &[Span::at(1, 1, 2)]),
        field(F::Issuer, Letter, &[Span::at(1, 3, 5)]),
        field(F::Surname, Letter, &[Span::at(1, 6, 30)]),
        field(F::AdministrativeCode, Alnum, &[Span::at(1, 31, 36)]),
        // The document number is issue month, office and sequence together; the
        // first two are also reported on their own (later specs refine the class).
        field(F::DocumentNumber, Alnum, &[Span::at(2, 1, 12)]),
        field(F::IssueDate, Digit, &[Span::at(2, 1, 4)]),
        field(F::IssuingOffice, Alnum, &[Span::at(2, 5, 7)]),
        field(F::GivenNames, Letter, &[Span::at(2, 14, 27)]),
        field(F::BirthDate, Digit, &[Span::at(2, 28, 33)]),
        field(F::Sex, Sex, &[Span::at(2, 35, 35)]),
    ];
    let checks = vec![
        check(CheckName::DocumentNumber, &[Span::at(2, 1, 12)], Some((1, 12))),
        check(CheckName::BirthDate, &[Span::at(2, 28, 33)], Some((1, 33))),
        check(CheckName::Composite, &[Span::at(1, 1, 36), Span::at(2, 1, 35)], Some((1, 35))),
    ];
    ZoneLayout { fields, checks, overflow_marker: None }
}

impl Layout {
    /// The layout of `format` for these lines (which must already have the format's shape).
    pub(crate) fn new(format: Format, grid: &[Vec<char>]) -> Layout {
        let ZoneLayout { mut fields, checks, overflow_marker } = match format {
            Format::Td3 | Format::MrvA | Format::Td2 | Format::MrvB => {
                two_line_layout(format, grid)
            }
            Format::Td1 => td1_layout(grid),
            Format::FraId => french_id_layout(),
        };
        let national = crate::national::NationalVariant::detect(format, grid);
        if national.is_some() {
            // The coding prints digits in the names: they may hold letters and digits.
            for spec in fields.iter_mut().filter(|spec| spec.name == FieldName::Surname) {
                spec.class = CellClass::Alnum;
            }
        }
        Layout { format, fields, checks, overflow_marker, national }
    }

    /// The class of every cell, for a grid of this layout's shape.
    pub(crate) fn cell_classes(&self) -> Vec<Vec<CellClass>> {
        let (n_lines, width) = self.format.shape();
        // Cells outside every field are fillers or check digits: both are treated as digit cells
        // except the overflow marker, which is a filler that must not be "corrected" to a digit.
        let mut classes = vec![vec![CellClass::Digit; width]; n_lines];
        for spec in &self.fields {
            for (line, column) in spec.cells() {
                if let Some(cell) = classes.get_mut(line).and_then(|row| row.get_mut(column)) {
                    *cell = spec.class;
                }
            }
        }
        if let Some(cell) = self
            .overflow_marker
            .and_then(|(line, column)| classes.get_mut(line).and_then(|row| row.get_mut(column)))
        {
            *cell = CellClass::Alnum;
        }
        classes
    }

    /// The spans of a field, if this layout has it.
    pub(crate) fn field(&self, name: FieldName) -> Option<&FieldSpec> {
        self.fields.iter().find(|spec| spec.name == name)
    }
}

/// The characters of a field's spans, concatenated.
pub(crate) fn field_chars(grid: &[Vec<char>], spans: &[Span]) -> Vec<char> {
    spans
        .iter()
        .flat_map(|span| span.cells())
        .filter_map(|(line, column)| grid.get(line).and_then(|row| row.get(column)).copied())
        .collect()
}
