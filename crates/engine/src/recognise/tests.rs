use super::*;
use crate::model::Classifier;

/// A row of glyphs at cells `ks` of a 10-pixel pitch, on a text line
/// sloping 0.2 against the search direction, moved `across` square to it.
fn sloped_row(ks: std::ops::Range<usize>, across: f32) -> TextRow {
    let slope = 0.2f32;
    let norm = (1.0 + slope * slope).sqrt();
    let members = ks
        .map(|k| {
            let s = 100.0 + 10.0 * k as f32;
            ((s - slope * across / norm, slope * s + across / norm), 6.0)
        })
        .collect::<Vec<_>>();
    let start = members[0].0.0 - 3.0;
    let end = members[members.len() - 1].0.0 + 3.0;
    let offset = members[0].0.1 - slope * members[0].0.0;
    TextRow::straight(members, (start, end), offset, slope)
}

#[test]
fn pieces_of_a_broken_glyph_count_as_one_cell() {
    // 44 glyphs 10 px apart; the one in cell 5 broke into two pieces 4 px apart.
    let mut members: Vec<((f32, f32), f32)> =
        (0..44).filter(|&k| k != 5).map(|k| ((100.0 + 10.0 * k as f32, 50.0), 6.0)).collect();
    members.insert(5, ((148.0, 50.0), 3.0));
    members.insert(6, ((152.0, 50.0), 3.0));
    let row = TextRow::straight(members, (97.0, 533.0), 50.0, 0.0);
    let index = index_row(&row).expect("an index");
    assert_eq!(index.span, 44);
    assert_eq!(index.pairs.len(), 44);
    assert_eq!(index.pairs[5], (5.0, 150.0));
    assert_eq!(index.pairs[6], (6.0, 160.0));
}

#[test]
fn a_row_missing_glyphs_takes_the_columns_of_a_sloping_neighbour() {
    let complete = sloped_row(0..30, 0.0);
    // The next line lost its first glyph; its columns lie along the slope.
    let incomplete = sloped_row(1..30, 30.0);
    let positions = rows_positions(&[complete, incomplete.clone()], 30).expect("positions");
    for (k, (&mine, &theirs)) in positions[1].iter().zip(&positions[0]).enumerate() {
        let expected = theirs - incomplete.slope * 30.0 / (1.0f32 + 0.04).sqrt();
        assert!((mine - expected).abs() < 0.5, "cell {k}: {mine} against {expected}");
    }
}

/// A 44-cell row seen at a slant: its pitch grows from 16 to 24 pixels.
fn foreshortened() -> Spacing {
    // pitch_at(0) = b - a d = 16 and pitch_at(43) = 16 / (1 + 43 d)^2 = 24.
    let d = ((16.0f32 / 24.0).sqrt() - 1.0) / 43.0;
    let a = 100.0;
    Spacing { a, b: 16.0 + a * d, d }
}

#[test]
fn the_perspective_fit_recovers_a_foreshortened_row() {
    let truth = foreshortened();
    let pairs: Vec<(f32, f32)> = (0..44).map(|k| (k as f32, truth.at(k as f32))).collect();
    let fit = fit_projective(&pairs).expect("a fit");
    for k in 0..44 {
        let k = k as f32;
        assert!((fit.at(k) - truth.at(k)).abs() < 0.05, "cell {k}");
        assert!((fit.index_of(truth.at(k)) - k).abs() < 0.01, "cell {k}");
    }
    assert!(fit.plausible(44, 20.0));
    // A straight line cannot follow it: a linear fit misses some cell by a third of a pitch.
    let (a, b) = fit_linear(&pairs).expect("a line");
    let worst = pairs.iter().map(|&(k, s)| (a + b * k - s).abs()).fold(0.0f32, f32::max);
    assert!(worst > 5.0, "{worst}");
}

#[test]
fn a_row_whose_pitch_doubles_in_a_steep_view_is_numbered_cell_by_cell() {
    // 44 cells whose pitch grows from 11 to 24 px, the fillers in cells 38 to 40
    // touching as one blob, as at the end of a TD3's second line.
    let d = ((11.0f32 / 24.0).sqrt() - 1.0) / 43.0;
    let truth = Spacing { a: 100.0, b: 11.0 + 100.0 * d, d };
    let glyph = |k: usize| ((truth.at(k as f32), 50.0), 0.6 * truth.pitch_at(k as f32));
    let mut members: Vec<((f32, f32), f32)> = (0..38).map(glyph).collect();
    let (from, to) = (truth.at(38.0), truth.at(40.0));
    members.push((((from + to) / 2.0, 50.0), to - from + 0.6 * truth.pitch_at(39.0)));
    members.extend((41..44).map(glyph));
    let ends = (truth.at(0.0) - 4.0, truth.at(43.0) + 8.0);
    let row = TextRow::straight(members, ends, 50.0, 0.0);
    // Counted in the median pitch (15 px), the near end's steps numbered 48 cells.
    let index = index_row(&row).expect("an index");
    assert_eq!(index.span, 44);
    assert!(index.pairs.iter().all(|&(k, s)| (truth.at(k) - s).abs() < 0.01));
    let positions = cell_positions(&row, 44).expect("positions");
    for (k, &at) in positions.iter().enumerate() {
        let k = k as f32;
        assert!((at - truth.at(k)).abs() < 0.1 * truth.pitch_at(k), "cell {k}: {at}");
    }
}

#[test]
fn cells_shrink_across_the_line_with_the_square_root_of_their_pitch() {
    let row = sloped_row(0..44, 0.0);
    let length = |v: (f32, f32)| v.0.hypot(v.1);
    // Even spacing: every cell takes the row's height.
    let even: Vec<f32> = (0..44).map(|k| 100.0 + 20.0 * k as f32).collect();
    for cell in row_cells(&row, &even, 1.0) {
        assert!((length(cell.across) - row.height).abs() < 1e-3);
    }
    // Foreshortened from 24 down to 16 pixels: the height belongs with the
    // wider pitches, and a cell half as wide along is 1/sqrt(2) as tall.
    let spacing = foreshortened();
    let positions: Vec<f32> = (0..44).map(|k| spacing.at(k as f32)).collect();
    let cells = row_cells(&row, &positions, 1.0);
    // Pitches grow along this row, so the upper quartile pitch is cell 33's.
    assert!((length(cells[33].across) - row.height).abs() < 1e-3);
    let (narrow, wide) = (&cells[0], &cells[42]);
    let ratio = length(narrow.across) / length(wide.across);
    let expected = (length(narrow.along) / length(wide.along)).sqrt();
    assert!((ratio - expected).abs() < 1e-3, "{ratio} against {expected}");
    assert!(ratio < 0.85, "{ratio}");
}

/// Two lines of 44 cells 20 px apart across, the lower one `wider` times
/// as wide about the middle, and `offset` pixels along.
fn two_lines(wider: f32, offset: f32) -> Vec<Vec<CellGeometry>> {
    [(1.0, 0.0, 100.0), (wider, offset, 130.0)]
        .iter()
        .map(|&(scale, offset, y)| {
            (0..44)
                .map(|k| CellGeometry {
                    centre: (500.0 + (k as f32 - 21.5) * 16.0 * scale + offset, y),
                    along: (16.0, 0.0),
                    across: (0.0, 20.0),
                })
                .collect()
        })
        .collect()
}

#[test]
fn cells_lean_along_converging_columns_and_not_for_lines_out_of_register() {
    // The lower line 6 % wider: at the ends its cells lie 0.06 * 21.5 * 16
    // pixels further out, over 30 pixels down, a lean of 0.688.
    let mut cells = two_lines(1.06, 0.0);
    shear_to_columns(&mut cells);
    for line in &cells {
        for (k, cell) in line.iter().enumerate() {
            let lean = 0.06 * (k as f32 - 21.5) * 16.0 / 30.0;
            let want = lean.clamp(-MAX_LEAN, MAX_LEAN) * 20.0;
            assert!((cell.across.0 - want).abs() < 0.01, "cell {k}: {:?}", cell.across);
            assert!((cell.across.1 - 20.0).abs() < 1e-3);
        }
    }
    // Lines of the same width, one printed a third of a pitch along: square cells.
    let mut cells = two_lines(1.0, 5.0);
    shear_to_columns(&mut cells);
    assert!(cells.iter().flatten().all(|cell| cell.across == (0.0, 20.0)));
}

#[test]
fn a_row_drawn_wider_than_its_neighbour_takes_its_columns_scaled() {
    let columns: Vec<f32> = (0..44).map(|k| 100.0 + 16.0 * k as f32).collect();
    // Glyphs of every other cell, 4 % wider about cell 21 and 2 px along.
    let wide: Vec<f32> =
        (0..44).step_by(2).map(|k| 2.0 + 436.0 + (columns[k] - 436.0) * 1.04).collect();
    let (a, b) = scaled_columns(&columns, &wide, 2.0);
    for (k, &c) in columns.iter().enumerate() {
        let want = 2.0 + 436.0 + (c - 436.0) * 1.04;
        assert!((a + b * c - want).abs() < 0.05, "cell {k}");
    }
    // Within one per cent, the shift alone.
    let near: Vec<f32> =
        (0..44).step_by(2).map(|k| 2.0 + 436.0 + (columns[k] - 436.0) * 1.005).collect();
    assert_eq!(scaled_columns(&columns, &near, 2.0), (2.0, 1.0));
}

#[test]
fn implausible_spacings_are_refused() {
    // Pitch shrinking to nothing, and a mean pitch far from the expected one.
    assert!(!Spacing { a: 0.0, b: 20.0, d: 0.05 }.plausible(44, 20.0));
    assert!(!Spacing::linear(0.0, 30.0).plausible(44, 20.0));
    assert!(Spacing::linear(0.0, 21.0).plausible(44, 20.0));
}

/// The best reading of a repository photo, from its located candidates, and the reader.
fn read_photo(name: &str, check: impl FnOnce(&Reader, Attempt)) {
    let path = format!("{}/../../tests/data/images/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(path).expect("a repository photo");
    let limits = crate::image::DecodeLimits { max_pixels: 50_000_000, max_bytes: 50_000_000 };
    let gray = crate::image::decode(&bytes, limits).expect("decodes").gray;
    let work = crate::locate::work_image(&gray);
    let (candidates, _) = crate::locate::locate(&work.image, crate::components::Darkness::NORMAL);
    let model = Classifier::embedded();
    let options = ParseOptions::default();
    let reader = Reader { model: &model, original: &gray, scale: work.scale, options: &options };
    let best = candidates
        .iter()
        .filter_map(|candidate| reader.read_candidate(candidate).into_iter().next())
        .max_by(|a, b| rank(a).total_cmp(&rank(b)))
        .expect("a reading");
    check(&reader, best);
}

/// An attempt's first `width` cells of each line, decoded again.
fn cut_to(attempt: &Attempt, width: usize) -> Attempt {
    let mut short = attempt.clone();
    for line in 0..short.cells.len() {
        short.cells[line].truncate(width);
        short.candidates[line].truncate(width);
        short.contrast[line].truncate(width);
        short.covered[line].truncate(width);
    }
    (short.reading, short.least_unchecked, short.least) =
        decode(&short.candidates, &ParseOptions::default()).expect("a reading");
    short
}

#[test]
fn lines_that_go_on_past_36_cells_are_read_as_44() {
    // The specimen passport's second line holds `B<<<<<10` past its 36th cell: characters
    // as well as fillers.
    read_photo("passporteye_test_passport-td3.png", |reader, attempt| {
        let full = attempt.reading.lines.clone();
        assert_eq!(full[1], "L898902C36UTO7408122F1204159ZE184226B<<<<<10");
        let short = cut_to(&attempt, 36);
        let longer = reader.continued_to_44(&short).expect("the lines go on");
        assert_eq!(longer.reading.lines, full);
        assert!(longer.reading.valid);
    });
}

#[test]
fn lines_that_bend_away_past_36_cells_are_followed() {
    // The same lines as if the page bent past the 36th cell: each cell beyond lies a tenth
    // of a character's height further off the path the first 36 fitted, eight tenths by
    // the last, and a straight continuation reads the paper beside the glyphs.
    read_photo("passporteye_test_passport-td3.png", |reader, attempt| {
        let full = attempt.reading.lines.clone();
        let mut short = cut_to(&attempt, 36);
        for line in &mut short.cells {
            let last = &mut line[35];
            last.along = (last.along.0 + 0.1 * last.across.0, last.along.1 + 0.1 * last.across.1);
        }
        let longer = reader.continued_to_44(&short).expect("the lines are followed");
        assert_eq!(longer.reading.lines, full);
    });
}

#[test]
fn a_visa_of_36_cells_is_not_lengthened_over_the_paper_beyond() {
    read_photo("100_visa-polx.jpg", |reader, attempt| {
        assert_eq!(attempt.reading.lines[0].len(), 36);
        assert!(attempt.reading.valid);
        assert!(reader.continued_to_44(&attempt).is_none());
    });
}

/// The classifier's probabilities for `cell` as cut, without a second look.
fn as_cut(model: &Classifier, image: &Gray, cell: &CellGeometry) -> [f32; N_CLASSES] {
    let mut input = [0.0f32; CELL_LEN];
    sample_cell(image, cell, Margins::Repaint, &mut input);
    model.probabilities(&input)
}

/// The likeliest symbol `classify` gives each cell of `cells`, and its probability.
fn classified(model: &Classifier, image: &Gray, cells: &[CellGeometry]) -> Vec<(char, f32)> {
    classify(model, image, cells).candidates.iter().map(|cell| cell.options[0]).collect()
}

/// The likeliest symbol of `probabilities` and its probability.
fn likeliest(probabilities: &[f32; N_CLASSES]) -> (char, f32) {
    let (k, &p) = probabilities.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    (char::from(crate::model::ALPHABET[k]), p)
}

/// The mean of the probabilities of `cell` as cut and of its nudged cuts.
fn nudged_mean(model: &Classifier, image: &Gray, cell: &CellGeometry) -> [f32; N_CLASSES] {
    let mut mean = as_cut(model, image, cell);
    for nudge in NUDGES {
        for (sum, p) in mean.iter_mut().zip(as_cut(model, image, &nudged(cell, nudge))) {
            *sum += p;
        }
    }
    mean.map(|sum| sum / (NUDGES.len() + 1) as f32)
}

#[test]
fn a_doubtful_cell_is_judged_on_the_mean_of_nudged_cuts_and_a_sure_one_as_cut() {
    read_photo("100_pass-uto.jpg", |reader, best| {
        let (model, image) = (reader.model, reader.original);
        let line = &best.cells[1];
        // The cells as found are sure: judged as cut.
        let sure = &line[0];
        assert!(!doubtful(&as_cut(model, image, sure)));
        assert_eq!(classified(model, image, line)[0], likeliest(&as_cut(model, image, sure)));
        // The line cut half a pitch off, between two glyphs, in part: the first eight cells
        // moved, so that some are doubtful and most of the line is still sure. Each doubtful
        // cell is judged on the mean of the cut and its four nudged neighbours.
        let mut cut: Vec<CellGeometry> = line.clone();
        for cell in cut.iter_mut().take(8) {
            *cell = nudged(cell, (0.5, 0.0));
        }
        let doubtful_at: Vec<usize> =
            (0..cut.len()).filter(|&i| doubtful(&as_cut(model, image, &cut[i]))).collect();
        assert!(doubtful_at.len() >= 3, "{} doubtful cells", doubtful_at.len());
        assert!(doubtful_at.len() as f32 <= MOST_DOUBTFUL * cut.len() as f32);
        let got = classified(model, image, &cut);
        for &i in &doubtful_at {
            let (symbol, p) = got[i];
            let mean = nudged_mean(model, image, &cut[i]);
            assert_eq!((symbol, p), likeliest(&mean));
            assert!((p - likeliest(&as_cut(model, image, &cut[i])).1).abs() > 1e-6);
        }
    });
}

#[test]
fn a_line_mostly_doubtful_is_judged_as_cut() {
    read_photo("100_pass-uto.jpg", |reader, best| {
        let (model, image) = (reader.model, reader.original);
        // Every cell cut half a pitch off: most of the line is doubtful, and nothing is
        // looked at again.
        let cut: Vec<CellGeometry> =
            best.cells[1].iter().map(|cell| nudged(cell, (0.5, 0.0))).collect();
        let n_doubtful = cut.iter().filter(|cell| doubtful(&as_cut(model, image, cell))).count();
        assert!(n_doubtful as f32 > MOST_DOUBTFUL * cut.len() as f32, "{n_doubtful} doubtful");
        let got = classified(model, image, &cut);
        for (cell, got) in cut.iter().zip(got) {
            assert_eq!(got, likeliest(&as_cut(model, image, cell)), "judged as cut");
        }
    });
}
