//! The 21 published specimen vectors (Doc 9303 Parts 3-6 and 11 and public test suites), each
//! checked against the fields the specimen documents state, independently of the golden JSON.

use mrtd_mrz::{CheckName, CheckStatus, Date, Format, ParseOptions, Reading, Sex, parse_text};

fn read(lines: &[&str]) -> Reading {
    let options = ParseOptions::new(Date::parse_iso("2026-11-29").unwrap());
    parse_text(lines, &options).unwrap()
}

fn date(text: &str) -> Option<Date> {
    Some(Date::parse_iso(text).unwrap())
}

/// The fields a vector states; `None` where the vector says nothing.
struct Expected {
    format: Format,
    number: &'static str,
    birth: &'static str,
    expiry: Option<&'static str>,
    sex: Sex,
    valid: bool,
}

fn assert_vector(lines: &[&str], expected: Expected) -> Reading {
    let reading = read(lines);
    assert_eq!(reading.format, expected.format, "{lines:?}");
    assert_eq!(reading.fields.document_number, expected.number, "{lines:?}");
    assert_eq!(reading.fields.birth_date, date(expected.birth), "{lines:?}");
    assert_eq!(reading.fields.expiry_date, expected.expiry.and_then(date), "{lines:?}");
    assert_eq!(reading.fields.sex, expected.sex, "{lines:?}");
    assert_eq!(reading.valid, expected.valid, "{lines:?}");
    assert!(reading.corrections.is_empty(), "{lines:?}: {:?}", reading.corrections);
    reading
}

fn printed(reading: &Reading, name: CheckName) -> Option<char> {
    reading.checks.iter().find(|check| check.name == name).and_then(|check| check.printed)
}

const ANNA_L1: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<";

#[test]
fn v01_td3_icao_specimen() {
    let reading = assert_vector(
        &[ANNA_L1, "L898902C36UTO7408122F1204159ZE184226B<<<<<10"],
        Expected {
            format: Format::Td3,
            number: "L898902C3",
            birth: "1974-08-12",
            expiry: Some("2012-04-15"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.issuer, "UTO");
    assert_eq!(reading.fields.nationality.as_deref(), Some("UTO"));
    assert_eq!(reading.fields.surname, "ERIKSSON");
    assert_eq!(reading.fields.given_names, "ANNA MARIA");
    assert_eq!(reading.fields.optional_data.as_deref(), Some("ZE184226B"));
    assert_eq!(printed(&reading, CheckName::DocumentNumber), Some('6'));
    assert_eq!(printed(&reading, CheckName::BirthDate), Some('2'));
    assert_eq!(printed(&reading, CheckName::ExpiryDate), Some('9'));
    assert_eq!(printed(&reading, CheckName::OptionalData), Some('1'));
    assert_eq!(printed(&reading, CheckName::Composite), Some('0'));
    assert_eq!(reading.derived.expired, Some(true));
}

#[test]
fn v02_td3_current_specimen() {
    let reading = assert_vector(
        &[
            "PPUTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C36UTO7408122F3404159ZE184226B<<<<<16",
        ],
        Expected {
            format: Format::Td3,
            number: "L898902C3",
            birth: "1974-08-12",
            expiry: Some("2034-04-15"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.document_code, "PP");
    assert_eq!(printed(&reading, CheckName::Composite), Some('6'));
    assert_eq!(reading.derived.expired, Some(false));
}

#[test]
fn v03_td3_part3_example3() {
    let blank_line1 = format!("P<YTO{}", "<".repeat(39));
    let reading = assert_vector(
        &[&blank_line1, "HA672242<6YTO5802254M9601086<<<<<<<<<<<<<<08"],
        Expected {
            format: Format::Td3,
            number: "HA672242",
            birth: "1958-02-25",
            expiry: Some("1996-01-08"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(reading.fields.nationality.as_deref(), Some("YTO"));
    assert_eq!(reading.fields.optional_data.as_deref(), Some(""));
    assert_eq!(printed(&reading, CheckName::OptionalData), Some('0'));
    assert_eq!(printed(&reading, CheckName::Composite), Some('8'));
}

#[test]
fn v04_td3_german_specimen() {
    let reading = assert_vector(
        &[
            "P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<",
            "C01X0006H1D<<6408125F1710319<<<<<<<<<<<<<<<0",
        ],
        Expected {
            format: Format::Td3,
            number: "C01X0006H",
            birth: "1964-08-12",
            expiry: Some("2017-10-31"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.issuer, "D");
    assert_eq!(reading.codes.issuer.canonical, "DEU");
    assert_eq!(reading.fields.surname, "MUSTERMANN");
    assert_eq!(reading.fields.given_names, "ERIKA");
    assert_eq!(printed(&reading, CheckName::OptionalData), Some('<'));
    assert_eq!(reading.check(CheckName::OptionalData), Some(CheckStatus::Verified));
    assert!(reading.warnings.is_empty(), "{:?}", reading.warnings);
}

#[test]
fn v05_td3_uk_specimen() {
    let reading = assert_vector(
        &[
            "P<GBRUK<SPECIMEN<<ANGELA<ZOE<<<<<<<<<<<<<<<<",
            "9250764733GBR8809117F2007162<<<<<<<<<<<<<<08",
        ],
        Expected {
            format: Format::Td3,
            number: "925076473",
            birth: "1988-09-11",
            expiry: Some("2020-07-16"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.surname, "UK SPECIMEN");
    assert_eq!(reading.fields.given_names, "ANGELA ZOE");
    assert_eq!(printed(&reading, CheckName::Composite), Some('8'));
}

#[test]
fn v06_td3_czech_specimen() {
    let reading = assert_vector(
        &[
            "P<CZESPECIMEN<<VZOR<<<<<<<<<<<<<<<<<<<<<<<<<",
            "99003853<1CZE1101018M1207046110101111<<<<<94",
        ],
        Expected {
            format: Format::Td3,
            number: "99003853",
            birth: "2011-01-01",
            expiry: Some("2012-07-04"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(reading.fields.optional_data.as_deref(), Some("110101111"));
    assert_eq!(printed(&reading, CheckName::OptionalData), Some('9'));
    assert_eq!(printed(&reading, CheckName::Composite), Some('4'));
}

#[test]
fn v07_td3_mindee_sample() {
    let reading = assert_vector(
        &[
            "P<GBRPUDARSAN<<HENERT<<<<<<<<<<<<<<<<<<<<<<<",
            "7077979792GBR9505209M1704224<<<<<<<<<<<<<<00",
        ],
        Expected {
            format: Format::Td3,
            number: "707797979",
            birth: "1995-05-20",
            expiry: Some("2017-04-22"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(printed(&reading, CheckName::DocumentNumber), Some('2'));
}

#[test]
fn v08_td2_part6_specimen() {
    let reading = assert_vector(
        &["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"],
        Expected {
            format: Format::Td2,
            number: "D23145890",
            birth: "1974-08-12",
            expiry: Some("2012-04-15"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.optional_data.as_deref(), Some(""));
    assert_eq!(printed(&reading, CheckName::Composite), Some('6'));
}

#[test]
fn v09_td2_expiry_window() {
    let reading = assert_vector(
        &["I<UTOSTEVENSON<<PETER<<<<<<<<<<<<<<<", "D231458907UTO3407127M9507122<<<<<<<2"],
        Expected {
            format: Format::Td2,
            number: "D23145890",
            birth: "1934-07-12",
            expiry: Some("1995-07-12"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(printed(&reading, CheckName::Composite), Some('2'));
}

#[test]
fn v10_td2_long_number() {
    let reading = assert_vector(
        &["I<UTOSTEVENSON<<PETER<JOHN<<<<<<<<<<", "D23145890<UTO3407127M95071227349<<<8"],
        Expected {
            format: Format::Td2,
            number: "D23145890734",
            birth: "1934-07-12",
            expiry: Some("1995-07-12"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(printed(&reading, CheckName::DocumentNumber), Some('9'));
    assert_eq!(printed(&reading, CheckName::Composite), Some('8'));
}

#[test]
fn v11_td1_part5_specimen() {
    let reading = assert_vector(
        &[
            "I<UTOD231458907<<<<<<<<<<<<<<<",
            "7408122F1204159UTO<<<<<<<<<<<6",
            "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
        ],
        Expected {
            format: Format::Td1,
            number: "D23145890",
            birth: "1974-08-12",
            expiry: Some("2012-04-15"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.nationality.as_deref(), Some("UTO"));
    assert_eq!(printed(&reading, CheckName::DocumentNumber), Some('7'));
    assert_eq!(printed(&reading, CheckName::Composite), Some('6'));
}

#[test]
fn v12_td1_part3_example4() {
    let reading = assert_vector(
        &["I<YTOD231458907<<<<<<<<<<<<<<<", "3407127M9507122YTO<<<<<<<<<<<2", &"<".repeat(30)],
        Expected {
            format: Format::Td1,
            number: "D23145890",
            birth: "1934-07-12",
            expiry: Some("1995-07-12"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(printed(&reading, CheckName::Composite), Some('2'));
}

#[test]
fn v13_td1_long_number() {
    let reading = assert_vector(
        &[
            "I<UTOD23145890<7349<<<<<<<<<<<",
            "3407127M9507122UTO<<<<<<<<<<<2",
            "STEVENSON<<PETER<JOHN<<<<<<<<<",
        ],
        Expected {
            format: Format::Td1,
            number: "D23145890734",
            birth: "1934-07-12",
            expiry: Some("1995-07-12"),
            sex: Sex::Male,
            valid: true,
        },
    );
    let check = reading.checks.iter().find(|c| c.name == CheckName::DocumentNumber).unwrap();
    assert_eq!((check.line, check.column, check.printed), (Some(1), Some(19), Some('9')));
    assert_eq!(reading.fields.given_names, "PETER JOHN");
}

#[test]
fn v14_td1_swiss() {
    let reading = assert_vector(
        &[
            "IDCHEA1234567<6<<<<<<<<<<<<<<<",
            "7510256M2009018CHE<<<<<<<<<<<8",
            "SMITH<<JOHN<ALBERT<<<<<<<<<<<<",
        ],
        Expected {
            format: Format::Td1,
            number: "A1234567",
            birth: "1975-10-25",
            expiry: Some("2020-09-01"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(reading.fields.document_code, "ID");
    assert_eq!(printed(&reading, CheckName::Composite), Some('8'));
}

#[test]
fn v15_mrva_doubango() {
    let reading = assert_vector(
        &[
            "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L8988901C4XXX4009078F96121096ZE184226B<<<<<<",
        ],
        Expected {
            format: Format::MrvA,
            number: "L8988901C",
            birth: "1940-09-07",
            expiry: Some("1996-12-10"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.nationality.as_deref(), Some("XXX"));
    assert_eq!(reading.fields.optional_data.as_deref(), Some("6ZE184226B"));
    assert_eq!(reading.check(CheckName::Composite), Some(CheckStatus::Absent));
}

#[test]
fn v16_mrva_icao_visa() {
    assert_vector(
        &[&ANNA_L1.replacen('P', "V", 1), "L898902C<3UTO6908061F9406236ZE184226B<<<<<<<"],
        Expected {
            format: Format::MrvA,
            number: "L898902C",
            birth: "1969-08-06",
            expiry: Some("1994-06-23"),
            sex: Sex::Female,
            valid: true,
        },
    );
}

#[test]
fn v17_mrva_uk_visa() {
    let reading = assert_vector(
        &[
            "VBGBROCONNOR<<ENYA<SIOBHAN<<<<<<<<<<<<<<<<<<",
            "5114278475DOM7510223M150611808<<<<<<<<<<<<<<",
        ],
        Expected {
            format: Format::MrvA,
            number: "511427847",
            birth: "1975-10-22",
            expiry: Some("2015-06-11"),
            sex: Sex::Male,
            valid: true,
        },
    );
    assert_eq!(reading.fields.document_code, "VB");
    assert_eq!(reading.fields.issuer, "GBR");
    assert_eq!(reading.fields.nationality.as_deref(), Some("DOM"));
    assert_eq!(reading.fields.optional_data.as_deref(), Some("08"));
}

#[test]
fn v18_mrvb_doubango() {
    let reading = assert_vector(
        &["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "L8988901C4XXX4009078F9612109<<<<<<<<"],
        Expected {
            format: Format::MrvB,
            number: "L8988901C",
            birth: "1940-09-07",
            expiry: Some("1996-12-10"),
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.optional_data.as_deref(), Some(""));
}

#[test]
fn v19_old_french_id() {
    let reading = assert_vector(
        &["IDFRATEST<NAME<<<<<<<<<<<<<<<<0CHE02", "1710GVA123451ROBERTA<<<<<<<9112311F2"],
        Expected {
            format: Format::FraId,
            number: "1710GVA12345",
            birth: "1991-12-31",
            expiry: None,
            sex: Sex::Female,
            valid: true,
        },
    );
    assert_eq!(reading.fields.surname, "TEST NAME");
    assert_eq!(reading.fields.given_names, "ROBERTA");
    assert_eq!(reading.fields.administrative_code.as_deref(), Some("0CHE02"));
    assert_eq!(reading.fields.issue_date.as_deref(), Some("2017-10"));
    assert_eq!(reading.fields.issuing_office.as_deref(), Some("GVA"));
    assert_eq!(printed(&reading, CheckName::DocumentNumber), Some('1'));
    assert_eq!(printed(&reading, CheckName::BirthDate), Some('1'));
    assert_eq!(printed(&reading, CheckName::Composite), Some('2'));
}

#[test]
fn v20_td1_overflow_with_wrong_check_digit_is_invalid() {
    let reading = assert_vector(
        &[
            "I<UTOD23145890<1240<XYZ<<<<<<<",
            "7408122F1204159UTO<<<<<<<<<<<8",
            "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
        ],
        Expected {
            format: Format::Td1,
            number: "D23145890124",
            birth: "1974-08-12",
            expiry: Some("2012-04-15"),
            sex: Sex::Female,
            valid: false,
        },
    );
    let check = reading.checks.iter().find(|c| c.name == CheckName::DocumentNumber).unwrap();
    assert_eq!(
        (check.status, check.printed, check.computed),
        (CheckStatus::Refuted, Some('0'), Some(4))
    );
    assert!(reading.warnings.iter().any(|w| w.code == mrtd_mrz::WarningCode::DataAfterOverflow));
}

#[test]
fn v21_damage_is_located() {
    let reading = assert_vector(
        &[ANNA_L1, "L898902C36UTO7508122F1204159ZE184226B<<<<<10"],
        Expected {
            format: Format::Td3,
            number: "L898902C3",
            birth: "1975-08-12",
            expiry: Some("2012-04-15"),
            sex: Sex::Female,
            valid: false,
        },
    );
    assert_eq!(reading.check(CheckName::DocumentNumber), Some(CheckStatus::Verified));
    assert_eq!(reading.check(CheckName::BirthDate), Some(CheckStatus::Refuted));
    assert_eq!(reading.check(CheckName::ExpiryDate), Some(CheckStatus::Verified));
    assert_eq!(reading.check(CheckName::Composite), Some(CheckStatus::Refuted));
}
