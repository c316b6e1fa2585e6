//! The verdict rules of `conclude`, cell by cell.

use mrtd_mrz::CellCandidates;

use super::*;

const LINES: [&str; 2] = [
    "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
    "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
];

/// Candidates for the specimen ([`mrtd_mrz::test_support::candidates`]).
fn candidates(
    p: impl Fn(usize, usize) -> f32,
    misread: &[(usize, usize)],
) -> Vec<Vec<CellCandidates>> {
    mrtd_mrz::test_support::candidates(&LINES, p, misread)
}

#[test]
fn half_the_check_digits_of_a_doubtful_reading_do_not_make_an_mrz() {
    assert!(!reads_as_an_mrz(4, 2, false, 0.6));
    assert!(reads_as_an_mrz(4, 3, false, 0.6));
    assert!(reads_as_an_mrz(4, 2, false, 0.9));
    assert!(reads_as_an_mrz(4, 0, true, 0.6));
    assert!(!reads_as_an_mrz(0, 0, false, 0.6));
}

#[test]
fn a_name_letter_the_name_model_changed_is_in_the_audit_trail() {
    // ERIKSSON with its K read as X at 0.6 and K at 0.35.
    let mut classified = candidates(|_, _| 0.99, &[]);
    classified[0][8] = CellCandidates::new(vec![('X', 0.6), ('K', 0.35), ('<', 0.05)]);
    let mut weighed = classified.clone();
    let names = crate::weigh::name_runs(
        &mrtd_mrz::parse_text(&LINES, &ParseOptions::default()).expect("a TD3"),
    );
    crate::weigh::weigh_names(&names, &mut weighed);
    let mut published = mrtd_mrz::decode_cells(&weighed, &ParseOptions::default()).expect("a TD3");
    assert_eq!(published.lines[0], LINES[0]);
    assert!(published.corrections.is_empty(), "the decoder saw K on top");
    let choices = name_letter_choices(&names, &classified, &published);
    published.note_choices(choices);
    assert_eq!(
        published.corrections,
        [mrtd_mrz::Correction {
            line: 1,
            column: 9,
            from: 'X',
            to: 'K',
            why: mrtd_mrz::Why::NameLetters,
            proof: Vec::new(),
        }]
    );
    // The verdict is the classifier's: K at 0.35 is not a confident letter.
    let probability =
        |line: usize, column: usize, symbol: char| classified[line][column].probability(symbol);
    assert!(!published.cells_certain(probability, &[]));
}

/// Cells of `lines` lines of `columns` characters, 20 px apart from (40, 40), lines 30 px apart.
fn geometry(lines: usize, columns: usize) -> Vec<Vec<CellGeometry>> {
    (0..lines)
        .map(|line| {
            (0..columns)
                .map(|pos| CellGeometry {
                    centre: (40.0 + 20.0 * pos as f32, 40.0 + 30.0 * line as f32),
                    along: (20.0, 0.0),
                    across: (0.0, 22.0),
                })
                .collect()
        })
        .collect()
}

/// The specimen TD3 as an attempt read at 0.99 everywhere, cells 20 px apart, with
/// the cells in `washed` bright and without contrast.
fn attempt_with_glare(washed: &[(usize, usize)], p_washed: f32) -> Attempt {
    let p = |line, pos| if washed.contains(&(line, pos)) { p_washed } else { 0.99 };
    attempt_of(candidates(p, &[]), washed)
}

/// An attempt whose cells hold `cells`, 20 px apart, with the cells in `washed` bright and
/// without contrast.
fn attempt_of(cells: Vec<Vec<CellCandidates>>, washed: &[(usize, usize)]) -> Attempt {
    let (reading, least_unchecked, least) =
        crate::attempt::decode(&cells, &ParseOptions::default()).expect("an MRZ");
    let (n_lines, width) = (cells.len(), cells[0].len());
    let contrast: Vec<Vec<f32>> = (0..n_lines)
        .map(|line| {
            (0..width).map(|pos| if washed.contains(&(line, pos)) { 3.0 } else { 40.0 }).collect()
        })
        .collect();
    Attempt {
        reading,
        least_unchecked,
        least,
        candidates: cells,
        cells: geometry(n_lines, width),
        contrast,
        covered: vec![vec![false; width]; n_lines],
        score: 0.99f32.ln(),
        rotation_degrees: 0.0,
        strokes: Vec::new(),
    }
}

#[test]
fn glare_over_the_end_of_short_lines_leaves_their_length_unproven() {
    // The first 36 characters of a visa's two lines of 44 (ICAO 9303's MRV-A specimen) make
    // a valid MRV-B: its fields up to the expiry date's check digit are laid out alike.
    let lines = ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "L8988901C4XXX4009078F96121096ZE18422"];
    let cells: Vec<Vec<CellCandidates>> = lines
        .iter()
        .map(|line| line.chars().map(|c| CellCandidates::new(vec![(c, 0.99)])).collect())
        .collect();
    let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
    let read = |washed: &[(usize, usize)]| {
        let attempt = attempt_of(cells.clone(), washed);
        conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
    };
    let valid = |read: &ImageReading| read.reading.as_ref().is_some_and(|r| r.valid);
    let clear = read(&[]);
    assert_eq!(clear.status, Status::Read);
    assert!(valid(&clear));
    // Washed out at the end of the first line: the line may go on under the glare.
    let at_end = read(&[(0, 32), (0, 33), (0, 34), (0, 35)]);
    assert_eq!(at_end.status, Status::Partial);
    assert!(!valid(&at_end));
    let glare = messages(&at_end, DiagnosticCode::Glare);
    assert!(glare.iter().any(|m| m.contains("may go on under it")), "{glare:?}");
    // Washed out inside the line, its end seen: the length stands.
    let inside = read(&[(0, 20), (0, 21), (0, 22)]);
    assert!(valid(&inside));
    assert!(messages(&inside, DiagnosticCode::Glare).iter().all(|m| !m.contains("may go on")));
}

#[test]
fn glare_over_characters_no_check_digit_covers_needs_near_certainty() {
    let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
    let report = LocateReport::default();
    let read = |washed: &[(usize, usize)], p: f32| {
        let attempt = attempt_with_glare(washed, p);
        conclude(Some(attempt), &report, &gray, 1.0, &ParseOptions::default())
    };
    assert_eq!(read(&[], 0.99).status, Status::Read);
    // A name letter at 0.9 is read, but not under glare.
    let name = [(0, 7), (0, 8), (0, 9)];
    assert_eq!(read(&[(0, 8)], 0.9).status, Status::Read, "no run of washed-out cells");
    let washed = read(&name, 0.9);
    assert_eq!(washed.status, Status::Partial);
    assert!(washed.reading.as_ref().is_some_and(|r| r.valid && r.lines[0] == LINES[0]));
    let codes: Vec<DiagnosticCode> = washed.diagnostics.iter().map(|d| d.code).collect();
    assert!(codes.contains(&DiagnosticCode::Glare), "{codes:?}");
    assert!(codes.contains(&DiagnosticCode::LowConfidence), "{codes:?}");
    // Read clearly in spite of the glare: read, with the glare said.
    let clear = read(&name, 0.99);
    assert_eq!(clear.status, Status::Read);
    assert!(clear.diagnostics.iter().any(|d| d.code == DiagnosticCode::Glare));
    // Over the document number, which its check digit covers: read.
    assert_eq!(read(&[(1, 1), (1, 2), (1, 3)], 0.9).status, Status::Read);
}

/// The messages of a result's diagnostics with `code`.
fn messages(read: &ImageReading, code: DiagnosticCode) -> Vec<&str> {
    read.diagnostics.iter().filter(|d| d.code == code).map(|d| d.message.as_str()).collect()
}

/// A cell of the specimen, as line and column, and the options it is read with.
type ReadAs = (usize, usize, Vec<(char, f32)>);

/// The specimen TD3 read at 0.99 everywhere but at the cells `changed` gives, with the
/// options it gives, concluded on a plain page.
fn read_with_cells(changed: &[ReadAs]) -> ImageReading {
    read_with_covered_cells(changed, &[])
}

/// The same, with the cells `covered` lists (line, column) covered above or below.
fn read_with_covered_cells(changed: &[ReadAs], covered: &[(usize, usize)]) -> ImageReading {
    let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
    let mut attempt = attempt_with_glare(&[], 0.99);
    for (line, column, options) in changed {
        attempt.candidates[*line][*column].options = options.clone();
    }
    for &(line, column) in covered {
        attempt.covered[line][column] = true;
    }
    (attempt.reading, attempt.least_unchecked, attempt.least) =
        crate::attempt::decode(&attempt.candidates, &ParseOptions::default()).expect("a TD3");
    conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
}

/// The same with one cell, `(line, column)`, holding `first` at `p` and `second` at
/// the rest.
fn read_with_cell(line: usize, column: usize, first: char, second: char, p: f32) -> ImageReading {
    read_with_cells(&[(line, column, vec![(first, p), (second, 1.0 - p)])])
}

#[test]
fn a_number_with_a_filler_inside_counts_every_plausible_alternative() {
    // L898902C3 read L<X8902C3: the 8 (weight 3) as a filler, -24, and the 9 (weight 1)
    // as X, +24. Document number and composite check digits agree, every cell at 0.99.
    let read = read_with_cells(&[
        (1, 1, vec![('<', 0.99), ('8', 0.01)]),
        (1, 2, vec![('X', 0.99), ('9', 0.01)]),
    ]);
    let reading = read.reading.as_ref().expect("a reading");
    assert_eq!(reading.fields.document_number, "L<X8902C3");
    // An 8 and a 9 at 1 % would not count elsewhere on glyphs this size; beside a filler
    // inside the number they do, and they agree with the check digits as well.
    assert!(!reading.valid);
    assert_eq!(read.status, Status::Partial);
    assert!(read.diagnostics.iter().any(|d| d.message.contains("filler (<) inside it")));
    let said = messages(&read, DiagnosticCode::LowConfidence);
    assert!(said.iter().any(|m| m.contains("the check digits prove neither")), "{said:?}");
}

#[test]
fn a_covered_cell_is_not_vouched_for_however_sure_the_classifier() {
    // L898902C3 read LA989O2C3 where a page edge cut line 2: the cut 8 an A at 0.76
    // (weight 3: +6), the 0 beside the edge an O at 0.9999 (weight 1: +24), 30 in all,
    // so the document number and composite check digits agree.
    let cut = [(1, 1, vec![('A', 0.76), ('8', 0.24)]), (1, 5, vec![('O', 0.9999), ('0', 0.0001)])];
    let uncovered = read_with_cells(&cut);
    let reading = uncovered.reading.as_ref().expect("a reading");
    assert!(reading.valid);
    assert_eq!(reading.fields.document_number, "LA989O2C3");
    // One doubtful cell under the check digits: they vouch for it.
    assert_eq!(uncovered.status, Status::Read);
    // The O's cell covered below: two doubtful cells under the same check digits.
    let covered = read_with_covered_cells(&cut, &[(1, 5)]);
    assert_eq!(covered.status, Status::Partial);
    assert!(covered.diagnostics.iter().any(|d| d.code == DiagnosticCode::LowConfidence));
    let said = messages(&covered, DiagnosticCode::PartlyCovered);
    assert!(
        matches!(said[..], [m] if m.contains("line 2 of the MRZ next to character 6 ")),
        "{said:?}"
    );
    assert!(!uncovered.diagnostics.iter().any(|d| d.code == DiagnosticCode::PartlyCovered));
}

#[test]
fn runs_of_flags_are_found_with_their_ends() {
    assert_eq!(runs_of(&[false, true, true, false, true]), vec![(1, 2), (4, 4)]);
    assert_eq!(runs_of(&[true]), vec![(0, 0)]);
    assert!(runs_of(&[false, false]).is_empty());
}

#[test]
fn a_letter_after_the_fillers_that_end_the_names_is_not_read_however_sure() {
    // The last filler of line 1, at the page's edge, read H at 0.99.
    let read = read_with_cell(0, 43, 'H', '<', 0.99);
    let reading = read.reading.as_ref().expect("a reading");
    assert!(reading.valid);
    assert!(reading.lines[0].ends_with("<<H"), "{}", reading.lines[0]);
    assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnusualName));
    assert_eq!(read.status, Status::Partial);
    assert!(read.diagnostics.iter().any(|d| d.message.contains("verify the names")));
}

#[test]
fn a_filler_that_may_be_a_k_is_not_settled_by_its_check_digits() {
    // A filler of the optional data seen as a K: K is 20, `<` is 0, and both check
    // digits over the cell pass either way.
    let read = |p: f32| read_with_cell(1, 38, 'K', '<', p);
    let doubtful = read(0.8);
    let published = doubtful.reading.as_ref().expect("a reading");
    assert_eq!(&published.lines[1][36..40], "B<K<");
    // The check digits prove neither reading, so they do not make this one valid.
    assert!(!published.valid);
    assert_eq!(doubtful.status, Status::Partial);
    let said = messages(&doubtful, DiagnosticCode::LowConfidence);
    assert!(said.iter().any(|m| m.contains("line 2 character 39 was read")), "{said:?}");
    assert_eq!(read(0.99).status, Status::Read, "no doubt the check digits would have to settle");
}

#[test]
fn a_name_letter_the_name_model_doubts_is_not_certain() {
    // ERIKSSON's I seen as a J, as at the edge of a shadow: RJK is all but unknown
    // in names, RIK common.
    let read = |p: f32| read_with_cell(0, 7, 'J', 'I', p);
    let doubted = read(0.96);
    let published = doubted.reading.as_ref().expect("a reading");
    assert_eq!(&published.lines[0][5..13], "ERJKSSON", "the model changes no letter read at 0.96");
    assert_eq!(doubted.status, Status::Partial, "0.96 by the classifier, under 0.9 once weighed");
    assert_eq!(read(0.995).status, Status::Read);
}

#[test]
fn a_name_letter_taken_for_its_look_alike_digit_is_read_and_a_code_letter_is_not() {
    // ERIKSSON's I seen as a 1, as where a font prints them alike: no name holds a digit,
    // and of letters the classifier offered only the I.
    let name = read_with_cells(&[(0, 7, vec![('1', 0.95), ('I', 0.05)])]);
    let published = name.reading.as_ref().expect("a reading");
    assert_eq!(published.lines[0], LINES[0]);
    assert_eq!(name.status, Status::Read);
    // The names are as sure as where the I was seen as an I (each cell at 0.99).
    let surname = |read: &ImageReading| {
        let evidence = read.reading.as_ref().map(|r| r.evidence.clone()).unwrap_or_default();
        let names = evidence.iter().find(|e| e.field == mrtd_mrz::FieldName::Surname);
        names.map_or(0.0, |e| e.confidence)
    };
    let plain = read_with_cells(&[]);
    assert!((surname(&name) - surname(&plain)).abs() < 0.01, "{}", surname(&name));
    // A glyph nearly as like an L as a 1 is in doubt among letters.
    let letters = read_with_cells(&[(0, 7, vec![('1', 0.6), ('L', 0.35), ('I', 0.05)])]);
    assert_eq!(letters.status, Status::Partial);
    // UTO's O seen as a 0: a code may be printed with digits (a numeric nationality), so
    // the O is not vouched for.
    let code = read_with_cells(&[(0, 4, vec![('0', 0.95), ('O', 0.05)])]);
    assert_eq!(code.reading.as_ref().map(|r| &r.lines[0][2..5]), Some("UTO"));
    assert_eq!(code.status, Status::Partial);
}

#[test]
fn an_issuer_that_is_no_known_code_needs_its_letters_near_certain() {
    // UTO's T seen as an I or a Z, as under a printed background pattern: no
    // known code is among the candidates.
    let read = |p: f32| read_with_cell(0, 3, 'I', 'Z', p);
    let doubtful = read(0.955);
    let published = doubtful.reading.as_ref().expect("a reading");
    assert_eq!(published.lines[0], LINES[0].replacen("UTO", "UIO", 1));
    assert!(published.valid, "no check digit covers the issuer");
    assert!(published.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::UnknownCode));
    assert_eq!(doubtful.status, Status::Partial);
    // Printed so (real documents carry codes the list lacks) and read without doubt.
    assert_eq!(read(0.9995).status, Status::Read);
}

/// `lines` read at 0.99 everywhere but at the cells `changed` gives, cells 20 px apart from
/// x = 40, concluded on a page `width` px wide: a width under the zone's own cuts it at the
/// right edge.
fn read_on_page(lines: &[&str], width: usize, changed: &[ReadAs]) -> ImageReading {
    let mut cells: Vec<Vec<CellCandidates>> = lines
        .iter()
        .map(|text| {
            let cell = |c: char| CellCandidates::new(vec![(c, 0.99), ('X', 0.01)]);
            text.chars().map(cell).collect()
        })
        .collect();
    for (line, column, options) in changed {
        cells[*line][*column].options = options.clone();
    }
    let (reading, least_unchecked, least) =
        crate::attempt::decode(&cells, &ParseOptions::default()).expect("a reading");
    let columns = cells[0].len();
    let attempt = Attempt {
        reading,
        least_unchecked,
        least,
        candidates: cells,
        cells: geometry(lines.len(), columns),
        contrast: vec![vec![40.0; columns]; lines.len()],
        covered: vec![vec![false; columns]; lines.len()],
        score: 0.99f32.ln(),
        rotation_degrees: 0.0,
        strokes: Vec::new(),
    };
    let gray = Gray { width, height: 200, data: vec![200; width * 200] };
    conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
}

#[test]
fn a_passport_cut_to_36_characters_is_not_published_as_a_td2() {
    // The specimen's lines cut at the 36th character by the photo's right edge: they fit
    // a TD2's shape, but a TD2 has no `P`, and every field would come from the wrong cells.
    let cut: Vec<&str> = LINES.iter().map(|line| &line[..36]).collect();
    let read = read_on_page(&cut, 740, &[]);
    assert!(read.reading.is_none(), "{:?}", read.reading.map(|r| r.lines));
    assert_eq!(read.status, Status::Partial);
    let said = messages(&read, DiagnosticCode::MrzCutAtEdge);
    assert!(
        matches!(said[..], [m] if m.contains("right edge") && m.contains("no reading is given")),
        "{said:?}"
    );
    // Nor advice about the characters of the reading not given.
    let about_characters = [
        DiagnosticCode::CheckDigitFailed,
        DiagnosticCode::Corrected,
        DiagnosticCode::LowConfidence,
    ];
    assert!(
        !read.diagnostics.iter().any(|d| about_characters.contains(&d.code)),
        "{:?}",
        read.diagnostics
    );
    // The same cells with the page around them: what was seen is given, as seen.
    let whole = read_on_page(&cut, 1000, &[]);
    assert!(whole.diagnostics.iter().all(|d| d.code != DiagnosticCode::MrzCutAtEdge));
    let reading = whole.reading.expect("a reading");
    assert!(
        reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::NonconformantDocumentCode)
    );
    // A visa's 36-character lines cut at their end keep their reading, marked not valid.
    let visa = ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "L8988901C4XXX4009078F9612109<<<<<<<<"];
    let cut_visa = read_on_page(&visa, 740, &[]);
    let reading = cut_visa.reading.expect("a reading");
    assert!(!reading.valid);
    assert_eq!(cut_visa.status, Status::Partial);
}

#[test]
fn a_glyph_the_edge_cuts_is_not_corrected() {
    // The page's edge at x = 900 cuts the last cell of each line (centred on 900): line 2's
    // composite check digit 0 was read C, with 0 its runner-up.
    let misread = [(1, 43, vec![('C', 0.6), ('0', 0.4)])];
    let cut = read_on_page(&LINES, 900, &misread);
    let reading = cut.reading.as_ref().expect("a reading");
    assert!(reading.lines[1].ends_with("<1C"), "kept as read: {}", reading.lines[1]);
    assert!(reading.corrections.is_empty(), "{:?}", reading.corrections);
    assert!(!reading.valid);
    assert_eq!(cut.status, Status::Partial);
    // The composite fails for want of the glyph: no advice about a misread.
    let failed = messages(&cut, DiagnosticCode::CheckDigitFailed);
    assert!(
        matches!(failed[..], [m] if m.contains("edge cuts do not match (composite)")),
        "{failed:?}"
    );
    // The same misread on a page that holds the whole glyph: the class rule (a digit
    // there) takes the classifier's runner-up, and the composite check digit proves it.
    let whole = read_on_page(&LINES, 1000, &misread).reading.expect("a reading");
    assert_eq!(whole.lines[1], LINES[1]);
    assert_eq!(whole.corrections.len(), 1, "{:?}", whole.corrections);
}

#[test]
fn a_look_alike_no_check_digit_covers_is_vouched_for_by_its_glyph_not_its_neighbours() {
    // A visa's optional data, which no check digit covers, holding an O between letters.
    let visa = [
        "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L8988901C4XXX4009078F96121096ZOE4226B<<<<<<<",
    ];
    let read = |p: f32| read_on_page(&visa, 1000, &[(1, 30, vec![('O', p), ('0', 1.0 - p)])]);
    // Letters on either side make the O ten times likelier, 0.98 from 0.86: yet the glyph
    // alone left it one in seven a zero.
    let doubtful = read(0.86);
    assert_eq!(doubtful.reading.as_ref().map(|r| r.lines[1].as_str()), Some(visa[1]));
    assert_eq!(doubtful.status, Status::Partial);
    assert_eq!(read(0.995).status, Status::Read);
}

#[test]
fn cells_a_drawn_line_crossed_are_said_and_vouched_for_only_by_check_digits() {
    let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
    // Every cell read at 0.999, its other reading at `other`.
    let read = |from: (f32, f32), to: (f32, f32), other: f32| {
        let mut attempt = attempt_with_glare(&[], 0.999);
        for cell in attempt.candidates.iter_mut().flatten() {
            cell.options[1].1 = other;
        }
        attempt.strokes = vec![crate::strokes::Stroke { from, to, half_width: 1.5 }];
        conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
    };
    // Cells are 20 px apart from x = 40, line 1 at y = 40 and line 2 at y = 70.
    // Through the surname (characters 6 to 9 of line 1): however sure the classifier, no
    // check digit vouches for names, so the reading is valid but not read.
    let names = read((140.0, 35.0), (205.0, 44.0), 0.0005);
    assert_eq!(names.status, Status::Partial);
    assert!(names.reading.as_ref().is_some_and(|r| r.valid && r.lines[0] == LINES[0]));
    let said = messages(&names, DiagnosticCode::MarkedOver);
    assert_eq!(said.len(), 1, "{:?}", names.diagnostics);
    assert!(said[0].contains("line 1 of the MRZ at characters 6 to 9"), "{}", said[0]);
    // Through one cell of the document number, which its check digit covers: read, and said.
    let one = read((75.0, 60.0), (82.0, 80.0), 0.0005);
    assert_eq!(one.status, Status::Read, "{:?}", one.diagnostics);
    let said = messages(&one, DiagnosticCode::MarkedOver);
    assert!(said.len() == 1 && said[0].contains("line 2 of the MRZ at character 3,"), "{said:?}");
    // Through seven of its cells: a check digit vouches for one doubtful cell, not seven.
    let number = read((40.0, 68.0), (150.0, 72.0), 0.0005);
    assert_eq!(number.status, Status::Partial, "{:?}", number.diagnostics);
    assert!(number.reading.as_ref().is_some_and(|r| r.valid));
    // There, other readings at 1 % count, as on small glyphs: three of them would satisfy
    // the check digit together, so it proves none of the cells, and the reading is not valid.
    let doubtful = read((40.0, 68.0), (150.0, 72.0), 0.01);
    assert!(doubtful.reading.as_ref().is_some_and(|r| !r.valid), "{:?}", doubtful.diagnostics);
    // Away from the line, the same other readings prove nothing wrong.
    assert_eq!(read((40.0, 150.0), (900.0, 150.0), 0.01).status, Status::Read);
    // A line that crosses no cell (below the zone) says nothing.
    let clear = read((40.0, 150.0), (900.0, 150.0), 0.0005);
    assert_eq!(clear.status, Status::Read);
    assert!(messages(&clear, DiagnosticCode::MarkedOver).is_empty());
}

#[test]
fn a_cell_whose_foot_a_line_drawn_over_the_page_touches_is_doubted_as_a_small_one() {
    // The document number's `0` (line 2, column 6) read `U`, worth the same to its check
    // digit, with the `0` offered at 0.003: a line erased along the glyphs' feet can take a
    // `0`'s foot with it.
    let as_u = |line: usize, column: usize, truth: char| match (line, column) {
        (1, 5) => CellCandidates::new(vec![('U', 0.96), ('O', 0.03), ('0', 0.003)]),
        _ => CellCandidates::new(vec![(truth, 0.99)]),
    };
    let cells: Vec<Vec<CellCandidates>> = LINES
        .iter()
        .enumerate()
        .map(|(line, text)| text.chars().enumerate().map(|(c, t)| as_u(line, c, t)).collect())
        .collect();
    let gray = Gray { width: 1000, height: 200, data: vec![200; 1000 * 200] };
    let read = |strokes: Vec<crate::strokes::Stroke>| {
        let attempt = Attempt { strokes, ..attempt_of(cells.clone(), &[]) };
        conclude(Some(attempt), &LocateReport::default(), &gray, 1.0, &ParseOptions::default())
    };
    let valid = |read: &ImageReading| read.reading.as_ref().is_some_and(|r| r.valid);
    // Untouched, a 0.003 rival on 22 px glyphs is no doubt.
    assert!(valid(&read(Vec::new())));
    // A stroke along the second line's feet, 12 px below its centre line (the glyphs reach
    // 11): it crosses no glyph's body, but it reaches the windows the cells are read from.
    let foot = crate::strokes::Stroke { from: (20.0, 82.0), to: (900.0, 82.0), half_width: 1.5 };
    assert!(!geometry(2, 44)[1].iter().any(|cell| foot.crosses(cell)));
    let underlined = read(vec![foot]);
    assert!(!valid(&underlined));
    assert_ne!(underlined.status, Status::Read);
    let doubts = messages(&underlined, DiagnosticCode::LowConfidence);
    assert!(doubts.iter().any(|m| m.contains("line 2 character 6")), "{doubts:?}");
}
