//! Builds conformant MRZ lines from field values, for the correction and property tests.

#![allow(dead_code, unreachable_pub)]

use mrtd_mrz::{Format, compute_check_digit};

/// Field values as they are written into the zone (already MRZ characters).
#[derive(Debug, Clone)]
pub struct Doc {
    pub code: String,
    pub issuer: String,
    pub name: String,
    pub number: String,
    pub nationality: String,
    pub birth: String,
    pub sex: char,
    pub expiry: String,
    pub optional: String,
    pub optional2: String,
}

fn pad(text: &str, width: usize) -> String {
    let mut out: String = text.chars().take(width).collect();
    while out.chars().count() < width {
        out.push('<');
    }
    out
}

fn cd(text: &str) -> char {
    char::from(b'0' + compute_check_digit(text.chars()).expect("MRZ characters"))
}

/// The lines of `doc` in `format` (not the old French ID).
pub fn emit(format: Format, doc: &Doc) -> Vec<String> {
    let code = pad(&doc.code, 2);
    let issuer = pad(&doc.issuer, 3);
    let nationality = pad(&doc.nationality, 3);
    let birth = format!("{}{}", doc.birth, cd(&doc.birth));
    let expiry = format!("{}{}", doc.expiry, cd(&doc.expiry));
    match format {
        Format::Td3 | Format::MrvA | Format::Td2 | Format::MrvB => {
            let width = if matches!(format, Format::Td3 | Format::MrvA) { 44 } else { 36 };
            let line1 = format!("{code}{issuer}{}", pad(&doc.name, width - 5));
            let long = format == Format::Td2 && doc.number.len() > 9;
            let (number_field, optional) = if long {
                let head: String = doc.number.chars().take(9).collect();
                let tail: String = doc.number.chars().skip(9).collect();
                (format!("{head}<"), format!("{tail}{}", cd(&doc.number)))
            } else {
                let field = pad(&doc.number, 9);
                let check = cd(&field);
                (format!("{field}{check}"), doc.optional.clone())
            };
            let head = format!("{number_field}{nationality}{birth}{}{expiry}", doc.sex);
            let line2 = match format {
                Format::Td3 => {
                    let optional = pad(&optional, 14);
                    let optional = format!("{optional}{}", cd(&optional));
                    let composite = format!("{}{}{}", &head[..10], &head[13..20], &head[21..28]);
                    let composite = format!("{composite}{optional}");
                    format!("{head}{optional}{}", cd(&composite))
                }
                Format::Td2 => {
                    let optional = pad(&optional, 7);
                    let composite =
                        format!("{}{}{}{optional}", &head[..10], &head[13..20], &head[21..28]);
                    format!("{head}{optional}{}", cd(&composite))
                }
                _ => format!("{head}{}", pad(&optional, width - 28)),
            };
            vec![line1, line2]
        }
        Format::Td1 => {
            let (number_field, optional) = if doc.number.len() > 9 {
                let head: String = doc.number.chars().take(9).collect();
                let tail: String = doc.number.chars().skip(9).collect();
                (format!("{head}<"), format!("{tail}{}", cd(&doc.number)))
            } else {
                let field = pad(&doc.number, 9);
                let check = cd(&field);
                (format!("{field}{check}"), doc.optional.clone())
            };
            let line1 = format!("{code}{issuer}{number_field}{}", pad(&optional, 15));
            let head =
                format!("{birth}{}{expiry}{nationality}{}", doc.sex, pad(&doc.optional2, 11));
            let composite =
                format!("{}{}{}{}", &line1[5..30], &head[..7], &head[8..15], &head[18..29]);
            let line2 = format!("{head}{}", cd(&composite));
            vec![line1, line2, pad(&doc.name, 30)]
        }
        Format::FraId => emit_french(doc),
    }
}

/// The old French ID: `number` is the 12-character issue month, office and sequence.
fn emit_french(doc: &Doc) -> Vec<String> {
    let line1 = format!("IDFRA{}{}", pad(&doc.name, 25), pad(&doc.optional, 6));
    let number = pad(&doc.number, 12);
    let head = format!(
        "{number}{}{}{}{}{}",
        cd(&number),
        pad(&doc.optional2, 14),
        doc.birth,
        cd(&doc.birth),
        doc.sex
    );
    let composite = format!("{line1}{head}");
    vec![line1, format!("{head}{}", cd(&composite))]
}

/// The ICAO specimen as a `Doc`.
pub fn specimen() -> Doc {
    Doc {
        code: "P".into(),
        issuer: "UTO".into(),
        name: "ERIKSSON<<ANNA<MARIA".into(),
        number: "L898902C3".into(),
        nationality: "UTO".into(),
        birth: "740812".into(),
        sex: 'F',
        expiry: "120415".into(),
        optional: "ZE184226B".into(),
        optional2: String::new(),
    }
}
