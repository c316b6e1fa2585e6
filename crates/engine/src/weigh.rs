//! Priors on the classifier's candidates before the cells are decoded: look-alike letters
//! and digits weighed by their neighbours' kind, and name letters by a letter-triple model
//! of personal names. Neither may vouch for a character: they only reorder what the
//! classifier offered.

/// How much more likely a look-alike is taken to be when its neighbours are of its kind.
const CONTEXT_ODDS: f32 = 10.0;

/// Pairs the classifier confuses and no glyph detail reliably separates in a worn photo.
const LOOK_ALIKES: [(char, char); 2] = [('0', 'O'), ('1', 'I')];

/// Weighs look-alike letters and digits by their neighbours: in a run of digits a round
/// glyph is a zero far more often than the letter O, and among letters the other way round
/// (document numbers and optional data are mostly digit runs or letter prefixes). Where the
/// classifier offers both of a pair, the one whose kind matches the neighbours' top readings
/// gets [`CONTEXT_ODDS`] times the odds; the pair's total probability is kept. Fields that
/// allow only one kind are settled by the layout later, so this matters only where both may
/// stand.
pub(crate) fn weigh_look_alikes(lines: &mut [Vec<mrtd_mrz::CellCandidates>]) {
    for line in lines.iter_mut() {
        let tops: Vec<Option<char>> = line
            .iter()
            .map(|cell| cell.options.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|o| o.0))
            .collect();
        for (index, cell) in line.iter_mut().enumerate() {
            let neighbours = [
                index.checked_sub(1).and_then(|i| tops[i]),
                tops.get(index + 1).copied().flatten(),
            ];
            let digits = neighbours.iter().flatten().filter(|c| c.is_ascii_digit()).count();
            let letters = neighbours.iter().flatten().filter(|c| c.is_ascii_uppercase()).count();
            let favour_digit = match (digits, letters) {
                (d, 0) if d > 0 => true,
                (0, l) if l > 0 => false,
                _ => continue,
            };
            for (digit, letter) in LOOK_ALIKES {
                let p = |c: char| cell.options.iter().find(|o| o.0 == c).map(|o| o.1);
                let (Some(pd), Some(pl)) = (p(digit), p(letter)) else { continue };
                let total = pd + pl;
                if total.is_nan() || total <= 0.0 {
                    continue;
                }
                let (wd, wl) =
                    if favour_digit { (pd * CONTEXT_ODDS, pl) } else { (pd, pl * CONTEXT_ODDS) };
                let (new_d, new_l) = (total * wd / (wd + wl), total * wl / (wd + wl));
                for option in cell.options.iter_mut() {
                    if option.0 == digit {
                        option.1 = new_d;
                    } else if option.0 == letter {
                        option.1 = new_l;
                    }
                }
            }
        }
    }
}

/// Letter triples in personal names, as shares of all triples (built by `scripts/name-letters.py`).
const NAME_LETTERS: &str = include_str!("../model/name-letters.txt");

/// The symbols of the name model; `<` stands for a word's edge.
const NAME_SYMBOLS: &[u8; 27] = b"<ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// How much share (in the table's units) a two-letter context needs before its own
/// triples count as much as the pairs it backs off to.
const NAME_BACKOFF: f32 = 20.0;

/// The least probability a letter is given after any two, however rare the triple: the
/// table is a mild preference, and names from languages it covers thinly must stay readable.
const NAME_FLOOR: f32 = 0.002;

/// The most the name model may change the classifier's odds between two letters. It
/// settles near ties (a dark `O` offered as `D` 0.05 and `O` 0.04; a `K` read as `X`
/// at 0.65 against 0.29) but leaves a letter read at 0.8 or more against one at 0.2 or
/// less as the classifier saw it, however rare it is in names: on photos whose names are
/// random letters, a model allowed to weigh more wrongly changed letters read at 0.94.
const NAME_MAX_ODDS: f32 = 4.0;

/// `P(next | two before)`, indexed `[a][b][next]` over [`NAME_SYMBOLS`]: the table's
/// triples, backed off to its pairs where a context is thin.
fn name_model() -> &'static [[[f32; 27]; 27]; 27] {
    static MODEL: std::sync::OnceLock<Box<[[[f32; 27]; 27]; 27]>> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| {
        let mut triples = Box::new([[[0.0f32; 27]; 27]; 27]);
        for line in NAME_LETTERS.lines().filter(|line| !line.starts_with('#')) {
            let (symbols, share) = line.split_once(' ').expect("a symbol triple and its share");
            let idx: Vec<usize> = symbols.chars().filter_map(name_index).collect();
            let share: f32 = share.parse().expect("the name table holds numbers");
            triples[idx[0]][idx[1]][idx[2]] = share;
        }
        let mut pairs = [[0.0f32; 27]; 27];
        for a in triples.iter() {
            for (b, row) in a.iter().enumerate() {
                for (c, share) in row.iter().enumerate() {
                    pairs[b][c] += share;
                }
            }
        }
        for row in pairs.iter_mut() {
            let total: f32 = row.iter().sum();
            row.iter_mut().for_each(|p| *p = (*p + 1.0) / (total + 27.0));
        }
        for a in triples.iter_mut() {
            for (b, row) in a.iter_mut().enumerate() {
                let total: f32 = row.iter().sum();
                for (c, p) in row.iter_mut().enumerate() {
                    let backed = (*p + NAME_BACKOFF * pairs[b][c]) / (total + NAME_BACKOFF);
                    *p = backed.max(NAME_FLOOR);
                }
            }
        }
        triples
    })
}

fn name_index(symbol: char) -> Option<usize> {
    NAME_SYMBOLS.iter().position(|&s| char::from(s) == symbol)
}

/// Where a reading's layout puts the names, as runs of cells (line, start, end), from 0.
pub(crate) fn name_runs(reading: &mrtd_mrz::Reading) -> Vec<(usize, usize, usize)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for field in [mrtd_mrz::FieldName::Surname, mrtd_mrz::FieldName::GivenNames] {
        for (line, column) in reading.field_cells(field) {
            if runs.iter().any(|&(l, start, end)| l == line && (start..end).contains(&column)) {
                continue;
            }
            match runs.last_mut() {
                Some(run) if run.0 == line && run.2 == column => run.2 = column + 1,
                _ => runs.push((line, column, column + 1)),
            }
        }
    }
    runs
}

/// A cell's probabilities over [`NAME_SYMBOLS`] (a filler is a word's edge), the
/// symbols it offers only; empty when it offers neither letters nor fillers.
fn name_distribution(cell: &mrtd_mrz::CellCandidates) -> Vec<(usize, f32)> {
    let mut distribution: Vec<(usize, f32)> = Vec::new();
    for &(symbol, p) in &cell.options {
        if let Some(idx) = name_index(symbol)
            && p.is_finite()
            && p > 0.0
        {
            distribution.push((idx, p));
        }
    }
    let total: f32 = distribution.iter().map(|d| d.1).sum();
    distribution.iter_mut().for_each(|d| d.1 /= total);
    distribution
}

/// Weighs the letters the classifier offers for each name cell by how usual they are
/// between the two cells on either side in personal names: `p(c)` times the probability
/// of the five symbols under a letter-triple model of names, the neighbours taken as the
/// classifier's distributions over theirs (in one pass, from the classifier's view of
/// them), that factor capped at [`NAME_MAX_ODDS`] between any two letters. The letters'
/// total probability, fillers and digits are kept.
/// Names are not covered by any check digit, so where the glyph alone is in doubt (a
/// dark `O` read as `0` then as `D`, a blurred `K` as `X`) this is the only evidence
/// there is; the caller keeps the classifier's own probabilities for the verdict.
pub(crate) fn weigh_names(
    names: &[(usize, usize, usize)],
    lines: &mut [Vec<mrtd_mrz::CellCandidates>],
) {
    let model = name_model();
    let edge = vec![(0usize, 1.0f32)];
    for &(line, start, end) in names {
        let Some(cells) = lines.get(line).filter(|cells| cells.len() >= end) else {
            continue;
        };
        let context: Vec<Vec<(usize, f32)>> =
            cells[start..end].iter().map(name_distribution).collect();
        // Beyond the field, and where a cell offers nothing a name holds, a word's edge.
        let at = |pos: Option<usize>| match pos.filter(|p| (start..end).contains(p)) {
            Some(p) if !context[p - start].is_empty() => &context[p - start],
            _ => &edge,
        };
        let mut weighed = Vec::new();
        for (pos, cell) in cells.iter().enumerate().take(end).skip(start) {
            if cell.options.iter().filter(|o| o.0.is_ascii_uppercase()).count() < 2 {
                continue;
            }
            let (l2, l1) = (at(pos.checked_sub(2)), at(pos.checked_sub(1)));
            let (r1, r2) = (at(Some(pos + 1)), at(Some(pos + 2)));
            // P(l2 l1 c r1 r2) up to what does not depend on c. A word's edge ends the
            // context: the model knows no triple across one.
            let fit = |c: usize| -> f32 {
                let mut sum = 0.0;
                for &(b, pb) in l1 {
                    let before: f32 = if b == 0 {
                        model[0][0][c]
                    } else {
                        l2.iter().map(|&(a, pa)| pa * model[a][b][c]).sum()
                    };
                    let after: f32 = r1
                        .iter()
                        .map(|&(d, pd)| {
                            let next: f32 = if d == 0 {
                                1.0
                            } else {
                                r2.iter().map(|&(e, pe)| pe * model[c][d][e]).sum()
                            };
                            pd * model[b][c][d] * next
                        })
                        .sum();
                    sum += pb * before * after;
                }
                sum
            };
            let mut options = cell.options.clone();
            let is_letter = |o: &(char, f32)| o.0.is_ascii_uppercase();
            let total: f32 = options.iter().filter(|o| is_letter(o)).map(|o| o.1).sum();
            let fits: Vec<f32> = options
                .iter()
                .map(|o| if is_letter(o) { fit(name_index(o.0).expect("a letter")) } else { 0.0 })
                .collect();
            let best = fits.iter().copied().fold(0.0f32, f32::max);
            if best.is_nan() || best <= 0.0 {
                continue;
            }
            let mut new_total = 0.0;
            for (option, fit) in options.iter_mut().zip(&fits).filter(|(o, _)| is_letter(o)) {
                option.1 *= (fit / best).max(1.0 / NAME_MAX_ODDS);
                new_total += option.1;
            }
            if !(new_total > 0.0 && total.is_finite()) {
                continue;
            }
            for option in options.iter_mut().filter(|o| is_letter(o)) {
                option.1 *= total / new_total;
            }
            options.sort_by(|a, b| b.1.total_cmp(&a.1));
            weighed.push((pos, options));
        }
        for (pos, options) in weighed {
            lines[line][pos].options = options;
        }
    }
}

/// The cells [`weigh_names`] may change, as (line, position) from 0.
pub(crate) fn is_name_cell(names: &[(usize, usize, usize)], line: usize, pos: usize) -> bool {
    names.iter().any(|&(l, start, end)| l == line && (start..end).contains(&pos))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(options: &[(char, f32)]) -> mrtd_mrz::CellCandidates {
        mrtd_mrz::CellCandidates::new(options.to_vec())
    }

    fn top(cell: &mrtd_mrz::CellCandidates) -> char {
        cell.options.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map_or('?', |o| o.0)
    }

    #[test]
    fn a_round_glyph_among_digits_reads_as_zero_and_among_letters_as_o() {
        let unsure = [('O', 0.65), ('0', 0.35)];
        let mut lines = vec![
            vec![cell(&[('4', 0.99)]), cell(&unsure), cell(&[('2', 0.99)])],
            vec![cell(&[('A', 0.99)]), cell(&[('0', 0.65), ('O', 0.35)]), cell(&[('B', 0.99)])],
        ];
        weigh_look_alikes(&mut lines);
        assert_eq!(top(&lines[0][1]), '0');
        assert_eq!(top(&lines[1][1]), 'O');
        let total: f32 = lines[0][1].options.iter().map(|o| o.1).sum();
        assert!((total - 1.0).abs() < 1e-6, "the pair keeps its probability: {total}");
    }

    #[test]
    fn mixed_neighbours_and_confident_glyphs_are_left_alone() {
        let mut lines = vec![
            vec![cell(&[('4', 0.99)]), cell(&[('O', 0.65), ('0', 0.35)]), cell(&[('B', 0.99)])],
            vec![cell(&[('4', 0.99)]), cell(&[('O', 0.99), ('0', 0.01)]), cell(&[('7', 0.99)])],
        ];
        let before = lines.clone();
        weigh_look_alikes(&mut lines);
        assert_eq!(lines[0][1], before[0][1], "a digit on one side and a letter on the other");
        assert_eq!(top(&lines[1][1]), 'O', "a confident O stays an O between digits");
    }

    /// A TD3's two lines, every cell certain, for the name tests.
    fn td3_cells(lines: [&str; 2]) -> Vec<Vec<mrtd_mrz::CellCandidates>> {
        lines.iter().map(|l| l.chars().map(|c| cell(&[(c, 0.99)])).collect()).collect()
    }

    /// Where a TD3's (and an MRV-A's) names are.
    const TD3_NAMES: [(usize, usize, usize); 1] = [(0, 5, 44)];

    const BOOKER: [&str; 2] = [
        "P<UTOBOOKER<<OLGA<MARIA<<<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];

    #[test]
    fn the_name_model_knows_usual_and_unusual_letter_triples() {
        let model = name_model();
        let p = |triple: &str| {
            let idx: Vec<usize> = triple.chars().filter_map(name_index).collect();
            model[idx[0]][idx[1]][idx[2]]
        };
        // After a word's first B, an O is common and a D all but unknown.
        assert!(p("<BO") > 10.0 * p("<BD"), "<BO {} <BD {}", p("<BO"), p("<BD"));
        assert!(p("<<K") > p("<<X"));
        // Every context's probabilities sum to about one (the floor adds a little).
        for (a, contexts) in model.iter().enumerate() {
            for (b, next) in contexts.iter().enumerate() {
                let total: f32 = next.iter().sum();
                assert!((0.99..1.1).contains(&total), "context {a} {b}: {total}");
            }
        }
    }

    #[test]
    fn a_doubtful_name_letter_takes_the_letter_usual_between_its_neighbours() {
        // A dark photo: both O of BOOKER look like zeros; the classifier's next guesses
        // for the first are D, then O, nearly tied.
        let mut lines = td3_cells(BOOKER);
        lines[0][6] = cell(&[('0', 0.85), ('D', 0.05), ('G', 0.047), ('O', 0.04)]);
        lines[0][7] = cell(&[('0', 0.82), ('O', 0.17), ('9', 0.007)]);
        weigh_names(&TD3_NAMES, &mut lines);
        let letters: Vec<char> = lines[0][6].options.iter().map(|o| o.0).collect();
        assert_eq!(letters, ['0', 'O', 'D', 'G'], "{:?}", lines[0][6]);
        let total: f32 = lines[0][6].options.iter().map(|o| o.1).sum();
        assert!((total - 0.987).abs() < 1e-4, "the letters keep their mass: {total}");
        assert_eq!(lines[0][6].options[0], ('0', 0.85), "digits are left as they were");
    }

    #[test]
    fn a_blurred_first_letter_is_weighed_by_how_names_begin() {
        let lines = ["V<CHEKOWALSKA<<ZOE<<<<<<<<<<<<<<<<<<<<<<<<<<", &"<".repeat(44)];
        let mut cells = td3_cells([lines[0], lines[1]]);
        cells[0][5] = cell(&[('X', 0.65), ('K', 0.29), ('<', 0.02), ('Z', 0.014)]);
        weigh_names(&TD3_NAMES, &mut cells);
        assert_eq!(top(&cells[0][5]), 'K');
        let filler = cells[0][5].options.iter().find(|o| o.0 == '<').expect("the filler");
        assert_eq!(filler.1, 0.02, "fillers are left as they were");
    }

    #[test]
    fn a_clearly_read_letter_stays_however_unusual_it_is_in_names() {
        // "VTD" hardly occurs in names and "VID" often; at 0.94 against 0.06 the
        // classifier's odds are beyond what the model may change.
        let name = "P<UTOSREY<<FXUVTDVANI<<<<<<<<<<<<<<<<<<<<<<<";
        let mut lines = td3_cells([name, BOOKER[1]]);
        lines[0][15] = cell(&[('T', 0.94), ('I', 0.06)]);
        weigh_names(&TD3_NAMES, &mut lines);
        assert_eq!(top(&lines[0][15]), 'T');
        // The same glyph in doubt is settled by the model.
        lines[0][15] = cell(&[('T', 0.7), ('I', 0.3)]);
        weigh_names(&TD3_NAMES, &mut lines);
        assert_eq!(top(&lines[0][15]), 'I');
    }

    #[test]
    fn only_name_cells_are_weighed() {
        let mut lines = td3_cells(BOOKER);
        lines[1][0] = cell(&[('L', 0.5), ('I', 0.5)]);
        lines[0][2] = cell(&[('U', 0.5), ('V', 0.5)]);
        let before = lines.clone();
        weigh_names(&TD3_NAMES, &mut lines);
        assert_eq!(lines, before);
        assert!(is_name_cell(&TD3_NAMES, 0, 5) && !is_name_cell(&TD3_NAMES, 0, 4));
    }

    #[test]
    fn the_names_are_where_each_layout_puts_them() {
        let options = mrtd_mrz::ParseOptions::default();
        let read = |lines: &[&str]| mrtd_mrz::parse_text(lines, &options).expect("an MRZ");
        assert_eq!(name_runs(&read(&BOOKER)), TD3_NAMES);
        let td1 = [
            "I<UTOD231458907<<<<<<<<<<<<<<<",
            "7408122F1204159UTO<<<<<<<<<<<6",
            "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
        ];
        assert_eq!(name_runs(&read(&td1)), [(2, 0, 30)]);
        let french =
            ["IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<", "9409923102854CORINNE<<<<<<<6512068F4"];
        assert_eq!(name_runs(&read(&french)), [(0, 5, 30), (1, 13, 27)]);
    }
}
