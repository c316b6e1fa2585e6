//! The document's own glyphs as evidence (`glyphs`), through `conclude`: a zone drawn on a
//! page, each look-alike with the shape this document gives it.

use mrtd_mrz::CellCandidates;

use super::*;

/// The ICAO specimen with a document number of nine zeros, check digits recomputed.
fn zeros_specimen() -> [String; 2] {
    let digit = |text: &str| {
        char::from_digit(
            u32::from(mrtd_mrz::compute_check_digit(text.chars()).expect("MRZ characters")),
            10,
        )
        .expect("a digit")
    };
    let number = "000000000";
    let (birth, expiry, optional) = ("740812", "120415", "ZE184226B<<<<<");
    let mut line = format!(
        "{number}{}UTO{birth}{}F{expiry}{}{optional}{}",
        digit(number),
        digit(birth),
        digit(expiry),
        digit(optional)
    );
    let composite = format!("{}{}{}", &line[0..10], &line[13..20], &line[21..43]);
    line.push(digit(&composite));
    ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<".to_owned(), line]
}

/// How the page prints its round glyphs, as half widths in pixels (glyphs are 22 px high);
/// `None` leaves the cells blank.
#[derive(Clone, Copy)]
struct Shapes {
    /// The zeros where only digits stand (dates, check digits).
    zero: Option<f32>,
    /// The Os where only letters stand (UTO, ERIKSSON).
    letter_o: Option<f32>,
    /// The document number's last seven zeros.
    number: f32,
    /// Its first two cells, the ones the classifier reads `O`.
    suspects: f32,
}

/// The zone drawn on a page, cells 20 px apart from (40, 40), lines 30 px apart: `0` and `O`
/// as rings of the widths `shapes` gives, every other character as bars placed by its code.
fn page(lines: &[String], shapes: Shapes) -> (Gray, Vec<Vec<CellGeometry>>) {
    let (width, height) = (40 + 20 * 44 + 40, 120);
    let mut gray = Gray { width, height, data: vec![210; width * height] };
    let mut cells = Vec::new();
    for (line, text) in lines.iter().enumerate() {
        let mut row = Vec::new();
        for (pos, symbol) in text.chars().enumerate() {
            let centre = (40.0 + 20.0 * pos as f32, 40.0 + 30.0 * line as f32);
            row.push(CellGeometry { centre, along: (20.0, 0.0), across: (0.0, 22.0) });
            let half_width = match (line, pos, symbol) {
                (1, 0..=1, _) => Some(shapes.suspects),
                (1, 2..=8, _) => Some(shapes.number),
                (_, _, '0') => shapes.zero,
                (_, _, 'O') => shapes.letter_o,
                _ => None,
            };
            if half_width.is_none() && matches!(symbol, '0' | 'O') {
                continue;
            }
            for y in 0..height {
                for x in 0..width {
                    let (dx, dy) = (x as f32 + 0.5 - centre.0, y as f32 + 0.5 - centre.1);
                    let ink = match (half_width, symbol) {
                        (Some(rx), _) => {
                            let r = ((dx / rx).powi(2) + (dy / 11.0).powi(2)).sqrt();
                            (r - 0.82).abs() < 0.18
                        }
                        (None, '<') => dy.abs() < 1.5 && dx.abs() < 6.0,
                        (None, other) => {
                            let code = u32::from(other) as f32;
                            let bar = -6.0 + (code % 7.0) * 2.0;
                            let across = -9.0 + (code % 5.0) * 4.5;
                            ((dx - bar).abs() < 1.6 && dy.abs() < 11.0)
                                || ((dy - across).abs() < 1.6 && dx.abs() < 7.0)
                        }
                    };
                    if ink {
                        gray.data[y * width + x] = 30;
                    }
                }
            }
        }
        cells.push(row);
    }
    (gray, cells)
}

/// The zeros specimen read at 0.99 everywhere, the first two cells of the document number
/// read `O` at 0.99 (and `0` at 0.005), concluded on the page `shapes` draws.
fn read_zeros(shapes: Shapes) -> ImageReading {
    let lines = zeros_specimen();
    let mut cells: Vec<Vec<CellCandidates>> = lines
        .iter()
        .map(|text| {
            text.chars().map(|c| CellCandidates::new(vec![(c, 0.99), ('X', 0.005)])).collect()
        })
        .collect();
    for column in [0, 1] {
        cells[1][column] = CellCandidates::new(vec![('O', 0.99), ('0', 0.005)]);
    }
    let (reading, least_unchecked, least) =
        crate::attempt::decode(&cells, &ParseOptions::default()).expect("a TD3");
    assert!(reading.valid, "O at weights 7 and 3 passes every check digit: {:?}", reading.lines);
    let (gray, geometry) = page(&lines, shapes);
    let attempt = Attempt {
        reading,
        least_unchecked,
        least,
        candidates: cells,
        cells: geometry,
        contrast: vec![vec![40.0; 44]; 2],
        covered: vec![vec![false; 44]; 2],
        score: 0.99f32.ln(),
        rotation_degrees: 0.0,
        strokes: Vec::new(),
    };
    conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
}

#[test]
fn a_letter_printed_as_the_documents_own_digit_is_the_digit() {
    // The document prints its zeros narrow (dates, check digits) and its Os round (UTO,
    // ERIKSSON); the two cells the classifier took for Os are narrow.
    let read =
        read_zeros(Shapes { zero: Some(5.0), letter_o: Some(9.0), number: 5.0, suspects: 5.0 });
    let published = read.reading.as_ref().expect("a reading");
    assert_eq!(published.lines, zeros_specimen().to_vec());
    let glyph_changes: Vec<(usize, usize)> = published
        .corrections
        .iter()
        .filter(|c| c.why == mrtd_mrz::Why::DocumentGlyphs)
        .map(|c| (c.line, c.column))
        .collect();
    assert_eq!(glyph_changes, vec![(2, 1), (2, 2)], "{:?}", published.corrections);
    assert!(published.valid);
    let said = read.diagnostics.iter().find(|d| d.code == DiagnosticCode::Corrected);
    assert!(
        said.is_some_and(|d| d.message.contains("how the document prints")),
        "{:?}",
        read.diagnostics
    );
    assert_eq!(read.status, Status::Read, "{:?}", read.diagnostics);
}

#[test]
fn a_letter_printed_as_the_documents_own_letter_stays() {
    // The two cells are round like the document's Os: Os, as the classifier saw them.
    let read =
        read_zeros(Shapes { zero: Some(5.0), letter_o: Some(9.0), number: 5.0, suspects: 9.0 });
    let published = read.reading.as_ref().expect("a reading");
    assert!(published.lines[1].starts_with("OO0000000"), "{:?}", published.lines);
    assert_eq!(read.status, Status::Read, "{:?}", read.diagnostics);
}

#[test]
fn a_document_that_prints_both_alike_proves_neither() {
    // Zeros and Os of one shape: the glyphs cannot tell the two Os from the zeros beside
    // them, and O at weights 7 and 3 changes no check digit.
    let read =
        read_zeros(Shapes { zero: Some(7.0), letter_o: Some(7.0), number: 7.0, suspects: 7.0 });
    assert_doubted(&read);
}

#[test]
fn a_document_with_no_print_of_either_proves_neither() {
    // No zero where only digits stand and no O where only letters do: nothing shows how
    // this document prints either, however sure the classifier.
    let read = read_zeros(Shapes { zero: None, letter_o: None, number: 6.0, suspects: 6.0 });
    assert_doubted(&read);
}

/// Not valid, not read, and the two cells named.
fn assert_doubted(read: &ImageReading) {
    let published = read.reading.as_ref().expect("a reading");
    assert!(!published.valid, "{:?}", published.lines);
    assert_eq!(read.status, Status::Partial);
    let doubts: Vec<&str> = read
        .diagnostics
        .iter()
        .filter(|d| d.code == DiagnosticCode::LowConfidence)
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        doubts.iter().any(|m| m.contains("line 2 character 1") && m.contains("line 2 character 2")),
        "{doubts:?}"
    );
}
