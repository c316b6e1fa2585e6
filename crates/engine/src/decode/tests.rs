use super::*;

fn certain(lines: &[&str]) -> Vec<Vec<CellCandidates>> {
    lines
        .iter()
        .map(|l| l.chars().map(|c| CellCandidates { options: vec![(c, 0.99)] }).collect())
        .collect()
}

#[test]
fn reads_the_td3_specimen_as_valid() {
    let lines = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];
    let reading = decode_cells(&certain(&lines)).unwrap();
    assert_eq!(reading.format, MrzFormat::Td3);
    assert!(reading.valid);
    assert_eq!(reading.lines, lines);
}

#[test]
fn lines_starting_idfra_are_read_in_the_layout_their_check_digits_pass() {
    // The old French identity card, and a TD2 that France issued.
    let card = ["IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<", "9409923102854CORINNE<<<<<<<6512068F4"];
    let td2 = ["IDFRAOCONNOR<<VIKTOR<XAVIER<<<<<<<<<", "MU3520<<<8ITA2801083F4810036275<<<<4"];
    for (lines, format) in [(card, MrzFormat::FraId), (td2, MrzFormat::Td2)] {
        let reading = decode_cells(&certain(&lines)).unwrap();
        assert_eq!(reading.format, format);
        assert!(reading.valid, "{lines:?}");
        assert_eq!(reading.lines, lines);
        assert!(reading.corrections.is_empty());
    }
}

#[test]
fn repairs_an_o_for_zero_with_the_check_digit() {
    let lines = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"];
    let mut cells = certain(&lines);
    // The classifier prefers O over 0 in the document number.
    cells[1][8] = CellCandidates { options: vec![('O', 0.6), ('0', 0.35)] };
    let reading = decode_cells(&cells).unwrap();
    assert!(reading.valid);
    assert_eq!(reading.lines[1], lines[1]);
    assert_eq!(reading.corrections.len(), 1);
}

#[test]
fn digits_are_not_allowed_in_names() {
    let lines = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"];
    let mut cells = certain(&lines);
    cells[0][6] = CellCandidates { options: vec![('0', 0.5), ('O', 0.4)] };
    let reading = decode_cells(&cells).unwrap();
    assert_eq!(&reading.lines[0][6..7], "O");
    assert_eq!(reading.corrections[0].reason, "character_class");
}
