//! The name field: primary and secondary identifiers (Doc 9303 Part 3 §4.6).

/// Names read from a name field.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Names {
    pub(crate) surname: String,
    pub(crate) given_names: String,
    /// The field is filled to its last cell, which is how truncation shows (if it shows at all).
    pub(crate) possibly_truncated: bool,
}

/// Joins the `<`-separated components of one identifier with spaces.
fn components(part: &str) -> String {
    part.split('<').filter(|component| !component.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Splits a name field at the first `<<`: primary identifier before, secondary after.
///
/// No `<<` means only a primary identifier; a leading `<<` means an empty primary identifier.
pub(crate) fn split_name_field(field: &[char]) -> Names {
    let text: String = field.iter().collect();
    let possibly_truncated = field.last().is_some_and(|c| *c != '<');
    let (primary, secondary) = match text.find("<<") {
        Some(idx) => (&text[..idx], &text[idx + 2..]),
        None => (text.as_str(), ""),
    };
    Names { surname: components(primary), given_names: components(secondary), possibly_truncated }
}

/// Joins the components of a field that holds only one identifier (old French ID given names).
pub(crate) fn single_identifier(field: &[char]) -> (String, bool) {
    let text: String = field.iter().collect();
    (components(&text), field.last().is_some_and(|c| *c != '<'))
}

/// Where the trailing filler run of a name field starts, if it has one.
///
/// Once the secondary identifier has started, a `<<` can only begin the trailing filler run.
/// The separator is exactly two fillers; three or more mean there is no secondary identifier
/// and the rest of the field is filler.
fn trailing_run_start(field: &[char]) -> Option<usize> {
    let separator = field.windows(2).position(|pair| pair == ['<', '<'])?;
    if field.get(separator + 2) == Some(&'<') {
        return Some(separator);
    }
    let secondary_start =
        (separator + 2..field.len()).find(|idx| field.get(*idx).is_some_and(|c| *c != '<'))?;
    let run_offset = field[secondary_start..].windows(2).position(|pair| pair == ['<', '<'])?;
    Some(secondary_start + run_offset)
}

/// Cells of a name field that are fillers misread as letters, found from the field's geometry.
///
/// Every `K`, `S`, `C`, `E` or `X` in the trailing filler run (see `trailing_run_start`) is a
/// misread filler, when nothing else stands there. Before that run a letter could be a
/// one-letter name component and is left alone: `K` and `<` look the same to every check
/// digit, so geometry is the only evidence.
pub(crate) fn misread_fillers(field: &[char]) -> Vec<usize> {
    let Some(run_start) = trailing_run_start(field) else {
        return Vec::new();
    };
    let is_filler_like = |c: &char| matches!(c, '<' | 'K' | 'S' | 'C' | 'E' | 'X');
    if !field[run_start..].iter().all(is_filler_like) {
        return Vec::new();
    }
    (run_start..field.len()).filter(|idx| field[*idx] != '<').collect()
}

/// The first letter after the fillers that end a name field's names, if any: Doc 9303 puts
/// nothing in the trailing filler run, so a letter there is a misread or a mark, not a name
/// component.
pub(crate) fn letter_after_names(field: &[char]) -> Option<usize> {
    let run_start = trailing_run_start(field)?;
    (run_start..field.len()).find(|idx| field[*idx] != '<')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(text: &str) -> Vec<char> {
        text.chars().collect()
    }

    #[test]
    fn primary_and_secondary() {
        let names = split_name_field(&chars("ERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"));
        assert_eq!(names.surname, "ERIKSSON");
        assert_eq!(names.given_names, "ANNA MARIA");
        assert!(!names.possibly_truncated);
    }

    #[test]
    fn only_primary_and_empty_primary() {
        let names = split_name_field(&chars("ARKFREITH<<<<<<<<<"));
        assert_eq!((names.surname.as_str(), names.given_names.as_str()), ("ARKFREITH", ""));
        let names = split_name_field(&chars("<<ANNA<<<<<<"));
        assert_eq!((names.surname.as_str(), names.given_names.as_str()), ("", "ANNA"));
        let names = split_name_field(&chars("UK<SPECIMEN<<ANGELA<ZOE<<<"));
        assert_eq!(
            (names.surname.as_str(), names.given_names.as_str()),
            ("UK SPECIMEN", "ANGELA ZOE")
        );
    }

    #[test]
    fn full_field_is_possibly_truncated() {
        let names = split_name_field(&chars("WOLFESCHLEGELSTEINHAUSEN<<HUBERT<BLAINE"));
        assert!(names.possibly_truncated);
    }

    #[test]
    fn a_letter_after_the_names_trailing_fillers_is_found() {
        assert_eq!(letter_after_names(&chars("MAUS<<KETTY<<<<<<<<H")), Some(19));
        assert_eq!(letter_after_names(&chars("SMITH<<<<<<<J<<")), Some(12));
        assert_eq!(letter_after_names(&chars("ERIKSSON<<ANNA<MARIA<<<<<<")), None);
        assert_eq!(letter_after_names(&chars("ERIKSSON<<ANNA<MARIA")), None);
        assert_eq!(letter_after_names(&chars("SMITH<JONES<<OLUWASEUN<AHMED<<")), None);
        assert_eq!(letter_after_names(&chars("<<ANNA<<<<")), None);
        assert_eq!(letter_after_names(&chars("SMITH<<<<<")), None);
    }

    #[test]
    fn misread_fillers_only_after_the_given_names() {
        assert_eq!(misread_fillers(&chars("ERIKSSON<<ANNA<MARIA<<<K<<S<")), vec![23, 26]);
        // A one-letter given name or middle initial stays.
        assert!(misread_fillers(&chars("SMITH<<K<<<<<<")).is_empty());
        assert!(misread_fillers(&chars("SMITH<<ANNA<K<<<<<")).is_empty());
        // A real letter in the tail means the structure is not a filler run.
        assert!(misread_fillers(&chars("SMITH<<ANNA<<MARIA<<<")).is_empty());
        assert!(misread_fillers(&chars("SMITH")).is_empty());
        // Without a secondary identifier the fillers start with a run of three or more.
        assert_eq!(misread_fillers(&chars("ARKFREITH<<<<KK<<<")), vec![13, 14]);
        assert!(misread_fillers(&chars("ARKFREITH<<<<ANNA<<<")).is_empty());
    }
}
