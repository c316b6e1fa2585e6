//! What opens the chip: the MRZ information BAC and PACE derive their keys from (ICAO 9303-11):
//! the document number, the date of birth and the date of expiry, each followed by its check
//! digit.

use mrtd_mrz::{Reading, compute_check_digit};
use schemars::JsonSchema;
use serde::Serialize;

/// The key material an NFC reader app needs to open the chip, from the printed MRZ.
#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct ChipAccess {
    /// The document number as the keys use it: in full (with a TD1 overflow), filled with
    /// `<` to at least 9 characters.
    pub document_number: String,
    pub document_number_check_digit: String,
    /// `YYMMDD`, as printed.
    pub birth_date: String,
    pub birth_date_check_digit: String,
    /// `YYMMDD`, as printed.
    pub expiry_date: String,
    pub expiry_date_check_digit: String,
    /// The three, each with its check digit, concatenated: the input of the BAC key
    /// derivation and of PACE with the MRZ as password.
    pub mrz_information: String,
}

/// The chip access material of a reading whose check digits all hold; `None` otherwise, or
/// for a visa (visas carry no chip) or a format without an expiry date.
pub fn chip_access(reading: &Reading) -> Option<ChipAccess> {
    if !reading.valid || reading.fields.document_code.starts_with('V') {
        return None;
    }
    let birth = &reading.dates.birth.raw;
    let expiry = &reading.dates.expiry.as_ref()?.raw;
    if birth.len() != 6 || expiry.len() != 6 {
        return None;
    }
    let mut number = reading.fields.document_number.clone();
    while number.len() < 9 {
        number.push('<');
    }
    let digit =
        |text: &str| compute_check_digit(text.chars()).map(|d| char::from(b'0' + d).to_string());
    let (number_digit, birth_digit, expiry_digit) =
        (digit(&number)?, digit(birth)?, digit(expiry)?);
    Some(ChipAccess {
        mrz_information: format!(
            "{number}{number_digit}{birth}{birth_digit}{expiry}{expiry_digit}"
        ),
        document_number: number,
        document_number_check_digit: number_digit,
        birth_date: birth.clone(),
        birth_date_check_digit: birth_digit,
        expiry_date: expiry.clone(),
        expiry_date_check_digit: expiry_digit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(lines: &[&str]) -> Reading {
        let options = mrtd_mrz::ParseOptions {
            correct: false,
            ..mrtd_mrz::ParseOptions::new(mrtd_mrz::Date::new(2026, 12, 1).expect("date"))
        };
        mrtd_mrz::parse_text(lines, &options).expect("an MRZ")
    }

    #[test]
    fn the_icao_worked_example_gives_its_mrz_information() {
        // ICAO 9303-11 appendix D.2: document number L898902C<, birth 690806, expiry 940623.
        let access = chip_access(&reading(&[
            "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
            "L898902C<3UTO6908061F9406236ZE184226B<<<<<14",
        ]))
        .expect("read");
        assert_eq!(access.mrz_information, "L898902C<369080619406236");
        assert_eq!(access.document_number, "L898902C<");
        assert_eq!(access.birth_date_check_digit, "1");
    }

    #[test]
    fn a_failing_check_digit_gives_none() {
        assert!(
            chip_access(&reading(&[
                "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                "L898902C<4UTO6908061F9406236ZE184226B<<<<<14",
            ]))
            .is_none()
        );
    }
}
