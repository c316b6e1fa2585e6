//! The printed page against the MRZ: whether what a document's visual zone prints (read by a
//! person, a form the holder filled in, or a text recogniser) agrees with its MRZ, field by
//! field, by the rules the MRZ is written with (Doc 9303 Part 3 §4.6 and §6): names upper-case,
//! hyphens and spaces as fillers, apostrophes dropped, national characters transliterated
//! (`Ü` as `UE` or `U`, `ß` as `SS`, `Ø` as `OE`), accents dropped; dates in their printed forms
//! (`16 APR/AVR 07`, `16.04.2007`, `2007-04-16`); the sex in the page's words (`F/F`, `M/H`).
//!
//! A disagreement is a signal of a misread or of an edited page; this module only compares.

use unicode_normalization::UnicodeNormalization;

use crate::{MrzDate, Reading, Sex};

/// How a printed field compares with the MRZ's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Agreement {
    /// Written by the MRZ's rules, the printed value is the MRZ's (for a date with unknown
    /// parts in the MRZ, the parts it knows).
    Agrees,
    /// The MRZ's name stops where the printed one goes on, in a name field filled to its last
    /// cell: the issuer truncated it (Part 3 §4.6), and what the MRZ holds agrees.
    AgreesTruncated,
    /// They differ.
    Differs,
    /// The MRZ does not hold this field (a format without it, a birth date of fillers).
    NotInMrz,
    /// The printed value is in a script this comparison does not transliterate.
    Uncompared,
}

impl Agreement {
    /// Whether the field was compared at all.
    fn compared(self) -> bool {
        !matches!(self, Agreement::NotInMrz | Agreement::Uncompared)
    }
}

/// A date as a document prints it: any part may be unknown (`XX.06.1967`, or a year alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintedDate {
    /// The day of the month.
    pub day: Option<u8>,
    /// The month, 1 to 12.
    pub month: Option<u8>,
    /// The year: four digits as printed, or the last two when only two are printed.
    pub year: Option<PrintedYear>,
}

/// A printed year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintedYear {
    /// Four digits.
    Full(u16),
    /// Two digits: the year within its century.
    TwoDigits(u8),
}

impl PrintedYear {
    fn within_century(self) -> u8 {
        match self {
            PrintedYear::Full(year) => u8::try_from(year % 100).unwrap_or(0),
            PrintedYear::TwoDigits(year) => year,
        }
    }
}

/// Month names and abbreviations in the languages documents print them in (English, French,
/// Spanish, Portuguese, German, Italian, Dutch, Danish, Norwegian and Swedish), upper-case and
/// without accents. A bilingual date names the month in several (`APR/AVR`).
const MONTHS: [&[&str]; 12] = [
    &[
        "JAN", "JANUARY", "JANV", "JANVIER", "ENE", "ENERO", "JANEIRO", "JANUAR", "GEN", "GENNAIO",
        "JANUARI",
    ],
    &[
        "FEB",
        "FEBRUARY",
        "FEV",
        "FEVR",
        "FEVRIER",
        "FEBRERO",
        "FEVEREIRO",
        "FEBRUAR",
        "FEBBRAIO",
        "FEBRUARI",
    ],
    &["MAR", "MARCH", "MARS", "MARZO", "MARCO", "MAERZ", "MARZ", "MRZ", "MRT", "MAART", "MARTS"],
    &["APR", "APRIL", "AVR", "AVRIL", "ABR", "ABRIL", "APRILE"],
    &["MAY", "MAI", "MAYO", "MAIO", "MAG", "MAGGIO", "MEI", "MAJ"],
    &["JUN", "JUNE", "JUIN", "JUNIO", "JUNHO", "JUNI", "GIU", "GIUGNO"],
    &["JUL", "JULY", "JUIL", "JUILLET", "JULIO", "JULHO", "JULI", "LUG", "LUGLIO"],
    &["AUG", "AUGUST", "AOU", "AOUT", "AGO", "AGOSTO", "AUGUSTUS"],
    &[
        "SEP",
        "SEPT",
        "SEPTEMBER",
        "SEPTEMBRE",
        "SEPTIEMBRE",
        "SET",
        "SETIEMBRE",
        "SETEMBRO",
        "SETTEMBRE",
    ],
    &["OCT", "OCTOBER", "OCTOBRE", "OCTUBRE", "OUT", "OUTUBRO", "OKT", "OKTOBER", "OTT", "OTTOBRE"],
    &["NOV", "NOVEMBER", "NOVEMBRE", "NOVIEMBRE", "NOVEMBRO"],
    &[
        "DEC",
        "DECEMBER",
        "DECEMBRE",
        "DIC",
        "DICIEMBRE",
        "DEZ",
        "DEZEMBRO",
        "DEZEMBER",
        "DICEMBRE",
        "DES",
        "DESEMBER",
    ],
];

/// Upper-case ASCII letters and digits of `text`, accents dropped (`É` is `E`).
fn plain_upper(text: &str) -> String {
    text.nfd().filter(char::is_ascii).map(|c| c.to_ascii_uppercase()).collect()
}

/// The month a word names, when every name in it (`APR/AVR`) names the same one.
fn month_named(word: &str) -> Option<u8> {
    let mut month = None;
    for name in word.split('/').filter(|name| !name.is_empty()) {
        let name = plain_upper(name).trim_end_matches('.').to_owned();
        let found = MONTHS.iter().position(|names| names.contains(&name.as_str()))?;
        let found = u8::try_from(found + 1).ok()?;
        if month.is_some_and(|known| known != found) {
            return None;
        }
        month = Some(found);
    }
    month
}

/// A numeric date part, or `None` inside `Some` for an unknown one printed as `X`s or `<`s.
fn number_part(part: &str) -> Option<Option<u16>> {
    if !part.is_empty() && part.chars().all(|c| matches!(c, 'X' | 'x' | '<' | '-')) {
        return Some(None);
    }
    if part.is_empty() || part.len() > 4 || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse().ok().map(Some)
}

fn year_of(part: &str) -> Option<Option<PrintedYear>> {
    let value = number_part(part)?;
    Some(match (value, part.len()) {
        (None, _) => None,
        (Some(year), 4) => Some(PrintedYear::Full(year)),
        (Some(year), 2) => Some(PrintedYear::TwoDigits(u8::try_from(year).ok()?)),
        _ => return None,
    })
}

/// The date, when its parts can be a day and a month; `00` is an unknown part, as some
/// issuers print it.
fn checked(day: Option<u16>, month: Option<u16>, year: Option<PrintedYear>) -> Option<PrintedDate> {
    let day = day.filter(|d| *d != 0).map(u8::try_from).transpose().ok()?;
    let month = month.filter(|m| *m != 0).map(u8::try_from).transpose().ok()?;
    if day.is_some_and(|d| !(1..=31).contains(&d)) || month.is_some_and(|m| !(1..=12).contains(&m))
    {
        return None;
    }
    Some(PrintedDate { day, month, year })
}

impl PrintedDate {
    /// Reads a date in a printed form: day, month and year (`16 APR 2007`, `16 APR/AVR 07`,
    /// `16.04.2007`, `16/04/07`, `16-04-2007`), ISO order (`2007-04-16`), a year alone, or with
    /// unknown parts as `X`s (`XX.06.1967`). Numeric dates are read day first, as documents
    /// print them. `None` for anything else.
    pub fn parse(text: &str) -> Option<PrintedDate> {
        // `16APR07`, as some pages print it: the month's name between spaces.
        let spaced = spaced_at_letters(text.trim());
        let text = spaced.as_str();
        let words: Vec<&str> = text.split_whitespace().collect();
        // A month by name: `16 APR/AVR 07`, `16 APR. 2007`, `APR 2007`.
        if let Some(at) = words.iter().position(|word| month_named(word).is_some()) {
            let month = month_named(words[at]).map(u16::from);
            let (before, after) = (&words[..at], &words[at + 1..]);
            let (day, year) = match (before, after) {
                ([day], [year]) => (number_part(day.trim_end_matches('.'))?, year_of(year)?),
                ([], [year]) => (None, year_of(year)?),
                _ => return None,
            };
            return checked(day, month, year);
        }
        let parts: Vec<&str> = text.split(['.', '/', '-', ' ']).filter(|p| !p.is_empty()).collect();
        match parts.as_slice() {
            [year] if year.len() == 4 => checked(None, None, year_of(year)?),
            [year, month, day] if year.len() == 4 => {
                checked(number_part(day)?, number_part(month)?, year_of(year)?)
            }
            [day, month, year] if day.len() <= 2 && month.len() <= 2 => {
                checked(number_part(day)?, number_part(month)?, year_of(year)?)
            }
            _ => None,
        }
    }
}

/// `text` with a space wherever digits and letters meet (`16APR07` is `16 APR 07`).
fn spaced_at_letters(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if previous.is_some_and(|p| p.is_ascii_digit() != c.is_ascii_digit())
            && previous.is_some_and(char::is_alphanumeric)
            && c.is_alphanumeric()
        {
            out.push(' ');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

/// The sex a printed word names: `M`, `F`, `X` or `<` and the page's words for them, a
/// bilingual `F/F` or `M/H` when both halves agree.
pub fn printed_sex(text: &str) -> Option<Sex> {
    let mut sex = None;
    for word in text.split('/').map(str::trim).filter(|word| !word.is_empty()) {
        let word = plain_upper(word);
        let found = match word.as_str() {
            "M" | "MALE" | "H" | "HOMME" | "MASCULIN" | "HOMBRE" | "MASCULINO" | "MANNLICH" => {
                Sex::Male
            }
            "F" | "FEMALE" | "FEMME" | "FEMININ" | "MUJER" | "FEMENINO" | "FEMININO" | "W"
            | "WEIBLICH" | "K" => Sex::Female,
            "X" | "<" | "UNSPECIFIED" => Sex::Unspecified,
            _ => return None,
        };
        if sex.is_some_and(|known| known != found) {
            return None;
        }
        sex = Some(found);
    }
    sex
}

/// One printed character as the MRZ may write it.
enum Token {
    /// A separator between name components (a space, a hyphen): one `<`.
    Separator,
    /// A letter or digit, with each spelling the MRZ allows for it (Part 3 §6).
    Letters(Vec<String>),
}

/// The printed name as the MRZ writes it, separators collapsed and trimmed; `None` when a
/// character has no Latin spelling here (another script).
fn tokens(printed: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    for c in printed.chars() {
        let fixed: &[&str] = match c {
            'Ä' | 'ä' => &["AE", "A"],
            'Ö' | 'ö' => &["OE", "O"],
            'Ü' | 'ü' => &["UE", "U", "UXX"],
            'Å' | 'å' => &["AA", "A"],
            'Ñ' | 'ñ' => &["N", "NXX"],
            'Æ' | 'æ' => &["AE"],
            'Ø' | 'ø' | 'Œ' | 'œ' => &["OE"],
            'ß' => &["SS"],
            'Þ' | 'þ' => &["TH"],
            'Ð' | 'ð' | 'Đ' | 'đ' => &["D"],
            'Ł' | 'ł' => &["L"],
            'Ħ' | 'ħ' => &["H"],
            'ı' => &["I"],
            'Ĳ' | 'ĳ' => &["IJ"],
            _ => &[],
        };
        if !fixed.is_empty() {
            tokens.push(Token::Letters(fixed.iter().map(|s| (*s).to_owned()).collect()));
        } else if c.is_whitespace() || matches!(c, '-' | '‐' | '‑' | '–' | ',' | '<') {
            if !matches!(tokens.last(), None | Some(Token::Separator)) {
                tokens.push(Token::Separator);
            }
        } else if !matches!(c, '\'' | '’' | '‘' | '`' | '.' | 'ʼ') {
            // Accents go (`É` is `E`); what is left must be Latin letters or digits.
            let plain = plain_upper(&c.to_string());
            if plain.is_empty() || !plain.bytes().all(|b| b.is_ascii_alphanumeric()) {
                return None;
            }
            tokens.push(Token::Letters(vec![plain]));
        }
    }
    if matches!(tokens.last(), Some(Token::Separator)) {
        tokens.pop();
    }
    Some(tokens)
}

/// Whether the printed name can be written as `mrz`; with `truncated`, whether its writing
/// can begin with `mrz` (and goes on); with `joined`, a filler of the MRZ between two names
/// may be missing from the printed text (a text recogniser loses spaces between words).
///
/// Walked over the MRZ's positions rather than by backtracking, since spellings of different
/// lengths (`Å` as `AA` or `A`) would make a wrong name cost exponential time.
fn spells(tokens: &[Token], mrz: &[u8], truncated: bool, joined: bool) -> bool {
    // `reachable[j]`: the tokens so far can be written as `mrz[..j]`.
    let mut reachable = vec![false; mrz.len() + 1];
    reachable[0] = true;
    for token in tokens {
        if truncated && reachable[mrz.len()] {
            return true;
        }
        if joined && matches!(token, Token::Letters(_)) {
            for at in 1..mrz.len() {
                if reachable[at] && mrz[at] == b'<' && mrz[at - 1] != b'<' {
                    reachable[at + 1] = true;
                }
            }
        }
        let mut next = vec![false; mrz.len() + 1];
        for at in (0..=mrz.len()).filter(|&at| reachable[at]) {
            let rest = &mrz[at..];
            match token {
                Token::Separator if rest.first() == Some(&b'<') => next[at + 1] = true,
                Token::Separator => {}
                Token::Letters(spellings) => {
                    for spelling in spellings.iter().map(String::as_bytes) {
                        if rest.starts_with(spelling) {
                            next[at + spelling.len()] = true;
                        } else if truncated && spelling.starts_with(rest) {
                            // The MRZ stops inside this character's spelling.
                            return true;
                        }
                    }
                }
            }
        }
        reachable = next;
    }
    reachable[mrz.len()]
}

/// How a printed name compares with the MRZ's (`mrz`: components separated by spaces).
fn compare_name(printed: &str, mrz: &str, may_be_truncated: bool, joined: bool) -> Agreement {
    let Some(tokens) = tokens(printed) else {
        return Agreement::Uncompared;
    };
    let mrz = mrz.replace(' ', "<");
    if spells(&tokens, mrz.as_bytes(), false, joined) {
        Agreement::Agrees
    } else if may_be_truncated && spells(&tokens, mrz.as_bytes(), true, joined) {
        Agreement::AgreesTruncated
    } else {
        Agreement::Differs
    }
}

/// How a printed date compares with an MRZ date: every part both know must be the same (the
/// year within its century, which is all the MRZ prints).
fn compare_date(printed: PrintedDate, mrz: &MrzDate) -> Agreement {
    let raw = mrz.raw.as_bytes();
    let part = |at: usize| -> Option<Option<u8>> {
        let pair = raw.get(at..at + 2)?;
        if pair == b"<<" {
            return Some(None);
        }
        std::str::from_utf8(pair).ok()?.parse().ok().map(Some)
    };
    let (Some(year), Some(month), Some(day)) = (part(0), part(2), part(4)) else {
        return Agreement::NotInMrz;
    };
    let pairs = [
        (printed.year.map(PrintedYear::within_century), year),
        (printed.month, month),
        (printed.day, day),
    ];
    if pairs.iter().all(|(_, mrz)| mrz.is_none()) {
        return Agreement::NotInMrz;
    }
    let differs = pairs.iter().any(|pair| matches!(pair, (Some(a), Some(b)) if a != b));
    if differs { Agreement::Differs } else { Agreement::Agrees }
}

/// What a page prints of the fields its MRZ holds; each one given is compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Printed {
    /// The surname (primary identifier) as printed; where the page prints one field for the
    /// whole name and no given names, that name (both of the MRZ's names, in either order).
    pub surname: Option<String>,
    /// The given names (secondary identifier) as printed.
    pub given_names: Option<String>,
    /// The date of birth.
    pub birth_date: Option<PrintedDate>,
    /// The date of expiry.
    pub expiry_date: Option<PrintedDate>,
    /// The document number as printed (spaces and hyphens are ignored).
    pub document_number: Option<String>,
    /// The sex.
    pub sex: Option<Sex>,
}

/// Each printed field given, compared with the MRZ's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Comparison {
    /// The surname.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub surname: Option<Agreement>,
    /// The given names.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub given_names: Option<Agreement>,
    /// The date of birth.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub birth_date: Option<Agreement>,
    /// The date of expiry.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub expiry_date: Option<Agreement>,
    /// The document number.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub document_number: Option<Agreement>,
    /// The sex.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub sex: Option<Agreement>,
}

impl Comparison {
    /// Every field compared, in a fixed order.
    pub fn fields(&self) -> [(&'static str, Option<Agreement>); 6] {
        [
            ("surname", self.surname),
            ("given_names", self.given_names),
            ("birth_date", self.birth_date),
            ("expiry_date", self.expiry_date),
            ("document_number", self.document_number),
            ("sex", self.sex),
        ]
    }

    /// Whether the page agrees with the MRZ: `Some(false)` when any field differs,
    /// `Some(true)` when none does and at least one could be compared, `None` when the MRZ
    /// holds none of the fields given.
    pub fn matches(&self) -> Option<bool> {
        let compared: Vec<Agreement> = self.fields().into_iter().filter_map(|(_, a)| a).collect();
        if compared.contains(&Agreement::Differs) {
            Some(false)
        } else if compared.iter().any(|a| a.compared()) {
            Some(true)
        } else {
            None
        }
    }
}

impl Reading {
    /// Compares what a page prints with this reading's MRZ, field by field.
    pub fn compare_printed(&self, printed: &Printed) -> Comparison {
        self.compare(printed, false)
    }

    /// Compares what a text recogniser read on the page with this reading's MRZ, as
    /// [`Reading::compare_printed`] does but for what such a reader cannot see: the spaces
    /// between names, which it may lose (`RITATANIA` for `RITA TANIA`: one the MRZ has may
    /// be missing), and the difference between `0` and `O`, `1` and `I` in a document
    /// number, which mixes letters and digits and which it reads without knowing the font
    /// (`RO0000000` for `R00000000`).
    pub fn compare_read_page(&self, printed: &Printed) -> Comparison {
        self.compare(printed, true)
    }

    fn compare(&self, printed: &Printed, recognised: bool) -> Comparison {
        // A recogniser may lose the spaces between names.
        let joined = recognised;
        let fields = &self.fields;
        // A name field filled to its last cell may have lost its end: the given names' if
        // there are any, else the surname's.
        let truncated = fields.names_possibly_truncated;
        let given_last = !fields.given_names.is_empty();
        // Read by a recogniser, a round glyph is one symbol and a bar another.
        let fold = |c: char| match c {
            'O' if recognised => '0',
            'I' if recognised => '1',
            c => c,
        };
        // A number as printed: its separators dropped, and its leading zeros, which some
        // issuers print and their MRZ leaves out (a Belgian card's `000-5903358-01` is
        // `590335801` in its zone).
        let document_number = |text: &String| {
            let plain: String =
                plain_upper(text).chars().filter(char::is_ascii_alphanumeric).map(fold).collect();
            let mrz: String =
                fields.document_number.chars().filter(|c| *c != '<').map(fold).collect();
            let significant = |number: &str| number.trim_start_matches('0').to_owned();
            if significant(&plain) == significant(&mrz) && !plain.is_empty() {
                Agreement::Agrees
            } else {
                Agreement::Differs
            }
        };
        let surname = |name: &String| {
            let alone = compare_name(name, &fields.surname, truncated && !given_last, joined);
            if alone != Agreement::Differs || printed.given_names.is_some() || !given_last {
                return alone;
            }
            // A page with one field for the whole name (`Name`, as many passports print it)
            // prints both of the MRZ's names there, in either order.
            let first = format!("{} {}", fields.surname, fields.given_names);
            let last = format!("{} {}", fields.given_names, fields.surname);
            match compare_name(name, &first, truncated, joined) {
                Agreement::Differs => compare_name(name, &last, false, joined),
                whole => whole,
            }
        };
        Comparison {
            surname: printed.surname.as_ref().map(surname),
            given_names: printed.given_names.as_ref().map(|name| {
                compare_name(name, &fields.given_names, truncated && given_last, joined)
            }),
            birth_date: printed.birth_date.map(|date| compare_date(date, &self.dates.birth)),
            expiry_date: printed.expiry_date.map(|date| match &self.dates.expiry {
                Some(expiry) => compare_date(date, expiry),
                None => Agreement::NotInMrz,
            }),
            document_number: printed.document_number.as_ref().map(document_number),
            sex: printed
                .sex
                .map(|sex| if sex == fields.sex { Agreement::Agrees } else { Agreement::Differs }),
        }
    }
}

#[cfg(test)]
mod tests;
