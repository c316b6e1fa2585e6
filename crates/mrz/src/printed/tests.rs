use super::*;
use crate::{ParseOptions, parse_text};

const TODAY: &str = "2026-12-07";

fn reading(lines: &[&str]) -> Reading {
    let options = ParseOptions::new(crate::Date::parse_iso(TODAY).unwrap());
    parse_text(lines, &options).unwrap()
}

/// ICAO's specimen passport of Utopia: ERIKSSON, ANNA MARIA, born 12 August 1974, F.
fn specimen() -> Reading {
    reading(&[
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ])
}

fn date(text: &str) -> PrintedDate {
    PrintedDate::parse(text).unwrap_or_else(|| panic!("{text} reads as a date"))
}

#[test]
fn printed_dates_in_the_forms_documents_use() {
    let full =
        |day, month, year| PrintedDate { day: Some(day), month: Some(month), year: Some(year) };
    assert_eq!(date("16 APR/AVR 07"), full(16, 4, PrintedYear::TwoDigits(7)));
    assert_eq!(date("16 APR 2007"), full(16, 4, PrintedYear::Full(2007)));
    assert_eq!(date("16 abr. 2007"), full(16, 4, PrintedYear::Full(2007)));
    assert_eq!(date("01 DÉC/DEC 1999"), full(1, 12, PrintedYear::Full(1999)));
    assert_eq!(date("3 MÄR 1985"), full(3, 3, PrintedYear::Full(1985)));
    assert_eq!(date("16.04.2007"), full(16, 4, PrintedYear::Full(2007)));
    assert_eq!(date("16/04/07"), full(16, 4, PrintedYear::TwoDigits(7)));
    assert_eq!(date("2007-04-16"), full(16, 4, PrintedYear::Full(2007)));
    assert_eq!(
        date("XX.06.1967"),
        PrintedDate { day: None, month: Some(6), year: Some(PrintedYear::Full(1967)) }
    );
    assert_eq!(
        date("1967"),
        PrintedDate { day: None, month: None, year: Some(PrintedYear::Full(1967)) }
    );
    // Written without spaces, and with 00 for an unknown part, as some issuers print them.
    assert_eq!(date("16APR07"), full(16, 4, PrintedYear::TwoDigits(7)));
    assert_eq!(date("16APR/AVR07"), full(16, 4, PrintedYear::TwoDigits(7)));
    assert_eq!(
        date("00.00.1967"),
        PrintedDate { day: None, month: None, year: Some(PrintedYear::Full(1967)) }
    );
    assert_eq!(date("24 DES/DEC 1990"), full(24, 12, PrintedYear::Full(1990)));
    for refused in
        ["", "16 APR/MAI 07", "32.01.2007", "16.13.2007", "yesterday", "16 04", "7.4.207"]
    {
        assert_eq!(PrintedDate::parse(refused), None, "{refused:?}");
    }
}

#[test]
fn printed_sex_in_the_pages_words() {
    assert_eq!(printed_sex("F"), Some(Sex::Female));
    assert_eq!(printed_sex("F/F"), Some(Sex::Female));
    assert_eq!(printed_sex("M/H"), Some(Sex::Male));
    assert_eq!(printed_sex("W"), Some(Sex::Female));
    assert_eq!(printed_sex("X"), Some(Sex::Unspecified));
    assert_eq!(printed_sex("M/F"), None);
    assert_eq!(printed_sex("Q"), None);
}

#[test]
fn the_specimens_page_agrees_with_its_mrz() {
    let printed = Printed {
        surname: Some("Eriksson".into()),
        given_names: Some("Anna Maria".into()),
        birth_date: Some(date("12 AUG/AOÛT 74")),
        expiry_date: Some(date("15.04.2012")),
        document_number: Some("L898902C3".into()),
        sex: printed_sex("F"),
    };
    let comparison = specimen().compare_printed(&printed);
    for (field, agreement) in comparison.fields() {
        assert_eq!(agreement, Some(Agreement::Agrees), "{field}");
    }
    assert_eq!(comparison.matches(), Some(true));
}

#[test]
fn an_edited_name_or_date_is_caught() {
    let edited = Printed {
        surname: Some("Eriksen".into()),
        birth_date: Some(date("12 AUG 1975")),
        ..Printed::default()
    };
    let comparison = specimen().compare_printed(&edited);
    assert_eq!(comparison.surname, Some(Agreement::Differs));
    assert_eq!(comparison.birth_date, Some(Agreement::Differs));
    assert_eq!(comparison.given_names, None, "only the fields given are compared");
    assert_eq!(comparison.matches(), Some(false));

    let number = Printed { document_number: Some("L 898902 C4".into()), ..Printed::default() };
    assert_eq!(specimen().compare_printed(&number).document_number, Some(Agreement::Differs));
    let spaced = Printed { document_number: Some("l 898902 c3".into()), ..Printed::default() };
    assert_eq!(specimen().compare_printed(&spaced).document_number, Some(Agreement::Agrees));
    // Leading zeros some issuers print and leave out of the zone; any other digit differs.
    let number = |text: &str| {
        let printed = Printed { document_number: Some(text.into()), ..Printed::default() };
        specimen().compare_printed(&printed).document_number
    };
    assert_eq!(number("000-L898902C3"), Some(Agreement::Agrees));
    assert_eq!(number("100-L898902C3"), Some(Agreement::Differs));
    assert_eq!(number("L898902C30"), Some(Agreement::Differs));
    assert_eq!(number("-"), Some(Agreement::Differs));
    let sex = Printed { sex: Some(Sex::Male), ..Printed::default() };
    assert_eq!(specimen().compare_printed(&sex).matches(), Some(false));
}

#[test]
fn national_characters_are_written_as_the_mrz_writes_them() {
    let cases = [
        ("Müller", "MUELLER", Agreement::Agrees),
        ("Müller", "MULLER", Agreement::Agrees),
        ("Müller", "MUXXLLER", Agreement::Agrees),
        ("Strauß", "STRAUSS", Agreement::Agrees),
        ("Øvergård", "OEVERGAARD", Agreement::Agrees),
        ("Øvergård", "OEVERGARD", Agreement::Agrees),
        ("O'Connor", "OCONNOR", Agreement::Agrees),
        ("Smith-Jones", "SMITH JONES", Agreement::Agrees),
        ("José María", "JOSE MARIA", Agreement::Agrees),
        ("Peña", "PENA", Agreement::Agrees),
        ("Wałęsa", "WALESA", Agreement::Agrees),
        ("  van der  Berg ", "VAN DER BERG", Agreement::Agrees),
        ("Muller", "MUELLER", Agreement::Differs),
        ("Smith", "SMITHE", Agreement::Differs),
        ("Иванов", "IVANOV", Agreement::Uncompared),
    ];
    for (printed, mrz, expected) in cases {
        assert_eq!(compare_name(printed, mrz, false, false), expected, "{printed} against {mrz}");
    }
}

#[test]
fn a_truncated_name_agrees_only_where_the_field_is_full() {
    // 39 cells of a TD3 name field, filled to the last: the given names were cut.
    let cut = reading(&[
        "P<UTOSCHWARZENEGGER<<MAXIMILIAN<FRIEDRICH<WI",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ]);
    assert!(cut.fields.names_possibly_truncated);
    let printed = Printed {
        surname: Some("Schwarzenegger".into()),
        given_names: Some("Maximilian Friedrich Wilhelm".into()),
        ..Printed::default()
    };
    let comparison = cut.compare_printed(&printed);
    assert_eq!(comparison.surname, Some(Agreement::Agrees));
    assert_eq!(comparison.given_names, Some(Agreement::AgreesTruncated));
    assert_eq!(comparison.matches(), Some(true));
    // The same beginning where the field is not full is a different name.
    let longer = Printed { given_names: Some("Anna Maria Louise".into()), ..Printed::default() };
    assert_eq!(specimen().compare_printed(&longer).given_names, Some(Agreement::Differs));
    // A cut field does not excuse a different name.
    let other = Printed { given_names: Some("Maximilian Georg".into()), ..Printed::default() };
    assert_eq!(cut.compare_printed(&other).given_names, Some(Agreement::Differs));
}

#[test]
fn unknown_birth_date_parts_compare_only_what_the_mrz_knows() {
    let partial = reading(&[
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO74<<<<1F1204159ZE184226B<<<<<18",
    ]);
    assert!(partial.valid, "the lines are well made");
    let compare = |text: &str| {
        partial
            .compare_printed(&Printed { birth_date: Some(date(text)), ..Printed::default() })
            .birth_date
    };
    assert_eq!(compare("XX XX 1974"), Some(Agreement::Agrees));
    assert_eq!(compare("12.08.1974"), Some(Agreement::Agrees));
    assert_eq!(compare("12.08.1975"), Some(Agreement::Differs));
    let unknown = reading(&[
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO<<<<<<0F1204159ZE184226B<<<<<10",
    ]);
    let printed = Printed { birth_date: Some(date("12.08.1974")), ..Printed::default() };
    let comparison = unknown.compare_printed(&printed);
    assert_eq!(comparison.birth_date, Some(Agreement::NotInMrz));
    assert_eq!(comparison.matches(), None, "nothing could be compared");
}

#[test]
fn a_wrong_name_with_many_spellings_is_answered_at_once() {
    // Each `Å` is `AA` or `A`: by backtracking, 2^40 ways to fail.
    let printed = "Å".repeat(40);
    let mrz = format!("{}X", "A".repeat(60));
    assert_eq!(compare_name(&printed, &mrz, false, false), Agreement::Differs);
    assert_eq!(compare_name(&printed, &mrz, true, false), Agreement::Differs);
}

proptest::proptest! {
    #[test]
    fn any_text_compares_without_panicking(printed in "\\PC{0,40}", mrz in "[A-Z< ]{0,40}") {
        let _ = compare_name(&printed, &mrz, true, false);
        let _ = PrintedDate::parse(&printed);
        let _ = printed_sex(&printed);
    }

    #[test]
    fn a_name_agrees_with_its_own_mrz_writing(
        components in proptest::collection::vec("[a-zA-Z]{1,8}", 1..4),
        separator in "[ -]",
    ) {
        let printed = components.join(&separator);
        let mrz = components.join(" ").to_ascii_uppercase();
        proptest::prop_assert_eq!(compare_name(&printed, &mrz, false, false), Agreement::Agrees);
    }
}

#[test]
fn a_page_read_by_a_machine_may_have_lost_the_spaces_between_names_and_nothing_else() {
    let names = |given: &str| Printed { given_names: Some(given.to_owned()), ..Printed::default() };
    let mrz = specimen();
    // Typed by a person, the space is part of the name; read by a recogniser, it may be lost.
    assert_eq!(mrz.compare_printed(&names("ANNAMARIA")).given_names, Some(Agreement::Differs));
    assert_eq!(mrz.compare_read_page(&names("ANNAMARIA")).given_names, Some(Agreement::Agrees));
    assert_eq!(mrz.compare_read_page(&names("Anna Maria")).given_names, Some(Agreement::Agrees));
    // A letter is never skipped, nor a name dropped.
    assert_eq!(mrz.compare_read_page(&names("ANNAMARA")).given_names, Some(Agreement::Differs));
    assert_eq!(mrz.compare_read_page(&names("ANNA")).given_names, Some(Agreement::Differs));
    assert_eq!(mrz.compare_read_page(&names("MARIA")).given_names, Some(Agreement::Differs));
}

#[test]
fn a_number_read_by_a_machine_may_have_its_zeros_and_ones_as_letters_and_nothing_else() {
    let number = |text: &str| Printed { document_number: Some(text.into()), ..Printed::default() };
    let mrz = specimen(); // L898902C3
    // A general recogniser does not know OCR-B's narrow zero from the letter, nor a one's
    // serifs from an I's.
    assert_eq!(
        mrz.compare_read_page(&number("L898902C3")).document_number,
        Some(Agreement::Agrees)
    );
    assert_eq!(
        mrz.compare_read_page(&number("L8989O2C3")).document_number,
        Some(Agreement::Agrees)
    );
    assert_eq!(
        mrz.compare_read_page(&number("l 8989o2 c3")).document_number,
        Some(Agreement::Agrees)
    );
    // Typed by a person, an O is an O.
    assert_eq!(mrz.compare_printed(&number("L8989O2C3")).document_number, Some(Agreement::Differs));
    // Any other letter for a digit, or a digit changed, still differs.
    assert_eq!(
        mrz.compare_read_page(&number("L8989B2C3")).document_number,
        Some(Agreement::Differs)
    );
    assert_eq!(
        mrz.compare_read_page(&number("L898912C3")).document_number,
        Some(Agreement::Differs)
    );
    assert_eq!(
        mrz.compare_read_page(&number("L898902G3")).document_number,
        Some(Agreement::Differs)
    );
    // A leading zero read as a letter is still a leading zero.
    assert_eq!(
        mrz.compare_read_page(&number("OL898902C3")).document_number,
        Some(Agreement::Agrees)
    );
    assert_eq!(
        mrz.compare_read_page(&number("IL898902C3")).document_number,
        Some(Agreement::Differs)
    );
}

#[test]
fn a_whole_name_in_the_surnames_field_agrees_where_the_page_prints_no_given_names() {
    let mrz = specimen();
    let page = |surname: &str, given: Option<&str>| Printed {
        surname: Some(surname.to_owned()),
        given_names: given.map(str::to_owned),
        ..Printed::default()
    };
    // One `Name` field holding both names, in either order.
    for whole in ["ERIKSSON ANNA MARIA", "Anna Maria Eriksson", "ANNA MARIA ERIKSSON"] {
        assert_eq!(mrz.compare_read_page(&page(whole, None)).surname, Some(Agreement::Agrees));
    }
    // Not where the page prints given names of its own, nor with a name changed or missing.
    assert_eq!(
        mrz.compare_read_page(&page("ERIKSSON ANNA MARIA", Some("ANNA MARIA"))).surname,
        Some(Agreement::Differs)
    );
    for edited in ["ERIKSSON ANNA", "ERIKSON ANNA MARIA", "ANNA MARIA", "MARIA ANNA ERIKSSON"] {
        assert_eq!(
            mrz.compare_read_page(&page(edited, None)).surname,
            Some(Agreement::Differs),
            "{edited}"
        );
    }
}
