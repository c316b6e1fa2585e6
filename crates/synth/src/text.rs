//! Random but well-formed MRZ text for every document format, with valid check digits.

/// The check digit of an MRZ field (ICAO 9303 7-3-1), as `mrtd-mrz` computes it; the
/// generator makes only alphabet characters, so every field has one.
fn check_digit(field: &[u8]) -> u8 {
    b'0' + mrtd_mrz::compute_check_digit(field.iter().map(|&c| char::from(c))).unwrap_or(0)
}
use crate::rng::Rng;

/// The document formats the generator can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynthFormat {
    /// ID card, three lines of 30.
    Td1,
    /// Official travel document, two lines of 36.
    Td2,
    /// Passport, two lines of 44.
    Td3,
    /// Full-size visa, two lines of 44.
    MrvA,
    /// Small visa, two lines of 36.
    MrvB,
}

impl SynthFormat {
    /// Every format, for round-robin generation.
    pub const ALL: [SynthFormat; 5] = [
        SynthFormat::Td1,
        SynthFormat::Td2,
        SynthFormat::Td3,
        SynthFormat::MrvA,
        SynthFormat::MrvB,
    ];

    /// The name used in manifests.
    pub fn name(self) -> &'static str {
        match self {
            SynthFormat::Td1 => "TD1",
            SynthFormat::Td2 => "TD2",
            SynthFormat::Td3 => "TD3",
            SynthFormat::MrvA => "MRVA",
            SynthFormat::MrvB => "MRVB",
        }
    }

    /// Width and height of the document in millimetres.
    pub fn size_mm(self) -> (f32, f32) {
        match self {
            SynthFormat::Td1 => (85.6, 54.0),
            SynthFormat::Td2 => (105.0, 74.0),
            SynthFormat::Td3 => (125.0, 88.0),
            SynthFormat::MrvA => (120.0, 80.0),
            SynthFormat::MrvB => (105.0, 74.0),
        }
    }
}

const SURNAMES: &[&str] = &[
    "ERIKSSON",
    "MUSTERMANN",
    "KOWALSKA",
    "NGUYEN",
    "OKAFOR",
    "GARCIA",
    "MUELLER",
    "DUBOIS",
    "ROSSI",
    "SILVA",
    "OCONNOR",
    "VAN<DER<BERG",
    "ABDULLAH",
    "YAMAMOTO",
    "PETROVIC",
    "OSULLIVAN",
    "QUINTERO",
    "ZHANG",
    "WOJCIK",
    "BOOKER",
    "HAMALAINEN",
    "OYELARAN",
    "KIM",
    "LI",
    "SMITH<JONES",
];
const GIVEN: &[&str] = &[
    "ANNA",
    "MARIA",
    "ERIKA",
    "JOHN",
    "OLUWASEUN",
    "LI",
    "HANS",
    "OLGA",
    "IBRAHIM",
    "ZOE",
    "PIOTR",
    "QUENTIN",
    "XAVIER",
    "YUKI",
    "BOGDAN",
    "KAREN",
    "SOPHIE",
    "AHMED",
    "JOSE<LUIS",
    "VIKTOR",
];
const STATES: &[&str] = &[
    "UTO", "D<<", "FRA", "POL", "NLD", "GBR", "USA", "CHE", "SWE", "ITA", "ESP", "PRT", "BEL",
    "NGA", "IND", "JPN", "KOR", "CHN", "BRA", "CAN", "AUS", "LVA", "EUE", "XXA", "GBD",
];

fn pad(mut text: String, len: usize) -> String {
    text.truncate(len);
    while text.len() < len {
        text.push('<');
    }
    text
}

fn random_alnum(rng: &mut Rng, len: usize, digits_only: bool) -> String {
    const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    (0..len)
        .map(|_| if digits_only { ALNUM[rng.below(10)] } else { ALNUM[rng.below(36)] } as char)
        .collect()
}

fn random_name(rng: &mut Rng) -> String {
    let mut name = (*rng.pick(SURNAMES)).to_string();
    name.push_str("<<");
    let given = GIVEN[rng.below(GIVEN.len())];
    name.push_str(given);
    if rng.chance(0.4) {
        let second = GIVEN[rng.below(GIVEN.len())];
        name.push('<');
        name.push_str(second);
    }
    name
}

fn random_date(rng: &mut Rng) -> String {
    format!("{:02}{:02}{:02}", rng.below(100), 1 + rng.below(12), 1 + rng.below(28))
}

fn random_document_number(rng: &mut Rng) -> String {
    let len = 6 + rng.below(4);
    let prefix_letters = rng.below(3);
    let mut number = random_alnum(rng, prefix_letters, false);
    let digits_only = rng.chance(0.6);
    number.push_str(&random_alnum(rng, len - prefix_letters, digits_only));
    pad(number, 9)
}

fn random_optional(rng: &mut Rng, len: usize) -> String {
    if rng.chance(0.5) {
        return "<".repeat(len);
    }
    let used = 1 + rng.below(len);
    let digits_only = rng.chance(0.5);
    pad(random_alnum(rng, used, digits_only), len)
}

fn with_check(field: String) -> String {
    let digit = check_digit(field.as_bytes()) as char;
    format!("{field}{digit}")
}

fn sex(rng: &mut Rng) -> char {
    *rng.pick(&['M', 'F', '<'])
}

/// Puts a name of uniformly random letters (a surname and one or two given names, each
/// 2 to 12 letters) in the name field of `lines`: names unlike any real one, to measure
/// what the reader's model of personal names costs on them. Names carry no check digit,
/// so the lines stay valid.
pub fn replace_name_with_random_letters(rng: &mut Rng, format: SynthFormat, lines: &mut [String]) {
    let word = |rng: &mut Rng| -> String {
        let len = 2 + rng.below(11);
        (0..len).map(|_| char::from(b'A' + rng.below(26) as u8)).collect()
    };
    let mut name = word(rng);
    name.push_str("<<");
    name.push_str(&word(rng));
    if rng.chance(0.4) {
        name.push('<');
        name.push_str(&word(rng));
    }
    let (line, start) = if format == SynthFormat::Td1 { (2, 0) } else { (0, 5) };
    let len = lines[line].len();
    lines[line] = pad(format!("{}{name}", &lines[line][..start]), len);
}

/// Generates the MRZ lines of a random document of the given format.
pub fn random_mrz(rng: &mut Rng, format: SynthFormat) -> Vec<String> {
    let issuer = (*rng.pick(STATES)).to_string();
    let nationality = (*rng.pick(STATES)).to_string();
    let name = random_name(rng);
    let number = with_check(random_document_number(rng));
    let birth = with_check(random_date(rng));
    let expiry = with_check(random_date(rng));
    let sex = sex(rng);
    match format {
        SynthFormat::Td3 | SynthFormat::MrvA => {
            let is_visa = format == SynthFormat::MrvA;
            let code = if is_visa { "V<" } else { *rng.pick(&["P<", "PP", "PD", "PO"]) };
            let line1 = pad(format!("{code}{issuer}{name}"), 44);
            let mut line2 = format!("{number}{nationality}{birth}{sex}{expiry}");
            if is_visa {
                line2.push_str(&random_optional(rng, 16));
            } else {
                let optional = random_optional(rng, 14);
                let optional_check = if optional.bytes().all(|c| c == b'<') && rng.chance(0.5) {
                    '<'
                } else {
                    check_digit(optional.as_bytes()) as char
                };
                line2.push_str(&optional);
                line2.push(optional_check);
                let composite: String =
                    format!("{}{}{}", &line2[0..10], &line2[13..20], &line2[21..43]);
                line2.push(check_digit(composite.as_bytes()) as char);
            }
            vec![line1, line2]
        }
        SynthFormat::Td2 | SynthFormat::MrvB => {
            let is_visa = format == SynthFormat::MrvB;
            let code = if is_visa { "V<" } else { *rng.pick(&["I<", "ID", "AC", "C<", "IR"]) };
            let line1 = pad(format!("{code}{issuer}{name}"), 36);
            let mut line2 = format!("{number}{nationality}{birth}{sex}{expiry}");
            if is_visa {
                line2.push_str(&random_optional(rng, 8));
            } else {
                line2.push_str(&random_optional(rng, 7));
                let composite: String =
                    format!("{}{}{}", &line2[0..10], &line2[13..20], &line2[21..35]);
                line2.push(check_digit(composite.as_bytes()) as char);
            }
            vec![line1, line2]
        }
        SynthFormat::Td1 => {
            let code = *rng.pick(&["I<", "ID", "IR", "AC", "C<"]);
            let line1 = format!("{code}{issuer}{number}{}", random_optional(rng, 15));
            let mut line2 =
                format!("{birth}{sex}{expiry}{nationality}{}", random_optional(rng, 11));
            let composite: String =
                format!("{}{}{}{}", &line1[5..30], &line2[0..7], &line2[8..15], &line2[18..29]);
            line2.push(check_digit(composite.as_bytes()) as char);
            vec![line1, line2, pad(name, 30)]
        }
    }
}

/// Generates a line of uniformly random MRZ symbols with some filler runs.
///
/// The classifier is trained on these as well as on well-formed documents so
/// that it learns the glyphs, not which symbol tends to follow which.
pub fn random_line(rng: &mut Rng, len: usize) -> String {
    const SYMBOLS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<";
    let mut line = String::with_capacity(len);
    while line.len() < len {
        if rng.chance(0.08) {
            let run = 1 + rng.below(6);
            for _ in 0..run {
                line.push('<');
            }
        } else {
            line.push(SYMBOLS[rng.below(SYMBOLS.len())] as char);
        }
    }
    line.truncate(len);
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_have_the_format_lengths() {
        let mut rng = Rng::new(7);
        for format in SynthFormat::ALL {
            for _ in 0..20 {
                let lines = random_mrz(&mut rng, format);
                let expected = match format {
                    SynthFormat::Td1 => (3, 30),
                    SynthFormat::Td2 | SynthFormat::MrvB => (2, 36),
                    SynthFormat::Td3 | SynthFormat::MrvA => (2, 44),
                };
                assert_eq!(lines.len(), expected.0);
                assert!(lines.iter().all(|l| l.len() == expected.1), "{lines:?}");
                assert!(
                    lines
                        .iter()
                        .all(|l| l.bytes().all(|c| mrtd_engine::model::class_of(c).is_some()))
                );
            }
        }
    }

    #[test]
    fn td3_check_digits_are_valid() {
        let mut rng = Rng::new(3);
        let lines = random_mrz(&mut rng, SynthFormat::Td3);
        let line2 = lines[1].as_bytes();
        assert_eq!(check_digit(&line2[0..9]), line2[9]);
        assert_eq!(check_digit(&line2[13..19]), line2[19]);
        assert_eq!(check_digit(&line2[21..27]), line2[27]);
    }

    #[test]
    fn random_names_replace_only_the_name_field() {
        let mut rng = Rng::new(11);
        for format in SynthFormat::ALL {
            let lines = random_mrz(&mut rng, format);
            let mut replaced = lines.clone();
            replace_name_with_random_letters(&mut rng, format, &mut replaced);
            let (line, start) = if format == SynthFormat::Td1 { (2, 0) } else { (0, 5) };
            for (idx, (old, new)) in lines.iter().zip(&replaced).enumerate() {
                assert_eq!(old.len(), new.len());
                if idx == line {
                    assert_eq!(old[..start], new[..start], "{format:?}: the codes stay");
                    assert_ne!(old[start..], new[start..], "{format:?}: a new name");
                    let name = new[start..].trim_end_matches('<');
                    assert!(name.contains("<<"), "{format:?}: {name}");
                    assert!(name.bytes().all(|c| c == b'<' || c.is_ascii_uppercase()));
                } else {
                    assert_eq!(old, new, "{format:?}: the other lines stay");
                }
            }
        }
    }
}
