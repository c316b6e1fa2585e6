//! National codings: documents that print digits where ICAO 9303 puts letters, and what
//! they mean. Recognised from the zone itself, so that the typed and the recognised path give
//! the same lines as printed and name the coding.

use crate::date::Date;
use crate::layout::Format;

/// A national coding of the zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum NationalVariant {
    /// The Russian internal passport (document code `PN`, issuer `RUS`): its names code each
    /// Cyrillic letter as one Latin letter or digit (`Я` as `8`, `Ч` as `3`), its document
    /// number holds the series and number, its optional data the issue date and the issuing
    /// office's code, and it has no expiry date.
    RusInternalPassport,
}

/// What a national coding says beyond the ICAO fields.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct National {
    /// Which coding.
    pub variant: NationalVariant,
    /// The names in the document's own script, decoded from the coding; `null` where the
    /// coding keeps them in Latin letters.
    pub surname_native: Option<String>,
    /// The given names in the document's own script.
    pub given_names_native: Option<String>,
    /// The document's series and number as printed on the page (`1104 000000`), where the
    /// coding splits them across fields.
    pub series_and_number: Option<String>,
    /// The date of issue, where the coding holds one.
    pub issue_date: Option<Date>,
    /// The issuing office's code (`292-000`), where the coding holds one.
    pub issuing_office_code: Option<String>,
}

/// The Russian internal passport's table: each Latin letter or digit of its names and the
/// Cyrillic letter it codes.
const RUS_TABLE: [(char, char); 33] = [
    ('A', 'А'),
    ('B', 'Б'),
    ('V', 'В'),
    ('G', 'Г'),
    ('D', 'Д'),
    ('E', 'Е'),
    ('2', 'Ё'),
    ('J', 'Ж'),
    ('Z', 'З'),
    ('I', 'И'),
    ('Q', 'Й'),
    ('K', 'К'),
    ('L', 'Л'),
    ('M', 'М'),
    ('N', 'Н'),
    ('O', 'О'),
    ('P', 'П'),
    ('R', 'Р'),
    ('S', 'С'),
    ('T', 'Т'),
    ('U', 'У'),
    ('F', 'Ф'),
    ('H', 'Х'),
    ('C', 'Ц'),
    ('3', 'Ч'),
    ('4', 'Ш'),
    ('W', 'Щ'),
    ('X', 'Ъ'),
    ('Y', 'Ы'),
    ('9', 'Ь'),
    ('6', 'Э'),
    ('7', 'Ю'),
    ('8', 'Я'),
];

impl NationalVariant {
    /// The coding a zone of `format` uses, from its document code and issuer as printed.
    pub(crate) fn detect(format: Format, grid: &[Vec<char>]) -> Option<NationalVariant> {
        let first: String = grid.first()?.iter().take(5).collect();
        (format == Format::Td3 && first == "PNRUS").then_some(NationalVariant::RusInternalPassport)
    }

    /// The digits the coding prints in names.
    pub(crate) fn name_digits(self) -> &'static str {
        match self {
            NationalVariant::RusInternalPassport => "2346789",
        }
    }

    /// One sentence for the warning that names the coding.
    pub(crate) fn description(self) -> &'static str {
        match self {
            NationalVariant::RusInternalPassport => {
                "a Russian internal passport: its names code Cyrillic letters, some as digits (Я as 8, Ч as 3), and are given as printed, with the Cyrillic under national"
            }
        }
    }

    /// The names in the document's script; `None` where a character has no meaning in the
    /// coding.
    fn native(self, latin: &str) -> Option<String> {
        match self {
            NationalVariant::RusInternalPassport => latin
                .chars()
                .map(|c| match c {
                    ' ' => Some(' '),
                    c => RUS_TABLE.iter().find(|(l, _)| *l == c).map(|(_, cyrillic)| *cyrillic),
                })
                .collect(),
        }
    }

    /// What the coding says, from the ICAO fields as printed: the names, and the
    /// document number and optional data (`number` and `optional`, fillers stripped).
    pub(crate) fn read(
        self,
        surname: &str,
        given_names: &str,
        number: &str,
        optional: &str,
    ) -> National {
        let digits = |text: &str| text.chars().all(|c| c.is_ascii_digit());
        // The document number holds the series' first three digits and the number; the
        // optional data the series' last digit, the issue date and the office's code.
        let (series_and_number, issue_date, issuing_office_code) = match self {
            NationalVariant::RusInternalPassport
                if number.len() == 9 && optional.len() >= 13 && digits(number) =>
            {
                let optional: Vec<char> = optional.chars().collect();
                let series = format!("{}{}", &number[..3], optional[0]);
                let issue: String = optional[1..7].iter().collect();
                let office: String = optional[7..13].iter().collect();
                let issue_date = digits(&issue).then(|| issue_date_from(&issue)).flatten();
                let office = digits(&office).then(|| format!("{}-{}", &office[..3], &office[3..]));
                (Some(format!("{series} {}", &number[3..])), issue_date, office)
            }
            NationalVariant::RusInternalPassport => (None, None, None),
        };
        National {
            variant: self,
            surname_native: self.native(surname),
            given_names_native: self.native(given_names),
            series_and_number,
            issue_date,
            issuing_office_code,
        }
    }
}

/// A `YYMMDD` date of issue: in the past century when the two-digit year would put it after
/// 2069 (internal passports have been issued since 1997).
fn issue_date_from(yymmdd: &str) -> Option<Date> {
    let number = |range: std::ops::Range<usize>| yymmdd.get(range)?.parse::<u8>().ok();
    let (yy, month, day) = (number(0..2)?, number(2..4)?, number(4..6)?);
    let century = if yy < 70 { 2000 } else { 1900 };
    Date::new(century + i32::from(yy), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_russian_internal_passport_names_read_in_cyrillic() {
        let national = NationalVariant::RusInternalPassport.read(
            "IM8REK",
            "EVGENIQ ALEKSANDROVI3",
            "110000000",
            "4041217292000",
        );
        assert_eq!(national.surname_native.as_deref(), Some("ИМЯРЕК"));
        assert_eq!(national.given_names_native.as_deref(), Some("ЕВГЕНИЙ АЛЕКСАНДРОВИЧ"));
        assert_eq!(national.series_and_number.as_deref(), Some("1104 000000"));
        assert_eq!(national.issue_date, Date::new(2004, 12, 17));
        assert_eq!(national.issuing_office_code.as_deref(), Some("292-000"));
    }

    #[test]
    fn a_character_the_coding_does_not_use_has_no_cyrillic() {
        let national = NationalVariant::RusInternalPassport.read("IM0REK", "", "1", "");
        assert_eq!(national.surname_native, None);
        assert_eq!(national.series_and_number, None);
    }

    #[test]
    fn only_a_russian_internal_passport_is_detected() {
        let grid = |line: &str| vec![line.chars().collect::<Vec<char>>()];
        let russian = grid("PNRUSIM8REK<<EVGENIQ<ALEKSANDROVI3<<<<<<<<<<");
        assert_eq!(
            NationalVariant::detect(Format::Td3, &russian),
            Some(NationalVariant::RusInternalPassport)
        );
        assert_eq!(NationalVariant::detect(Format::Td3, &grid("P<RUSIVANOV<<IVAN<<<<")), None);
        assert_eq!(NationalVariant::detect(Format::Td2, &russian), None);
    }
}
