//! The ICAO 9303 check digit: 7-3-1 weighted sum of character values, modulo 10.

/// The repeating weights, starting at a field's first character.
const WEIGHTS: [u32; 3] = [7, 3, 1];

/// The value of an MRZ character for check digit purposes, or `None` outside the alphabet.
///
/// Digits are themselves, `A`..`Z` are 10..35 and the filler `<` is 0.
pub fn char_value(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(u32::from(c) - u32::from('0')),
        'A'..='Z' => Some(u32::from(c) - u32::from('A') + 10),
        '<' => Some(0),
        _ => None,
    }
}

/// The weight of the character at `index` (0-based) inside the checked string: 7, 3, 1, 7, ...
pub fn weight(index: usize) -> u32 {
    WEIGHTS[index % 3]
}

/// Computes the check digit (0..=9) of `chars`, or `None` when one of them is outside the alphabet.
pub fn compute<I: IntoIterator<Item = char>>(chars: I) -> Option<u8> {
    let mut sum = 0u32;
    for (index, c) in chars.into_iter().enumerate() {
        sum = (sum + char_value(c)? * weight(index)) % 10;
    }
    u8::try_from(sum).ok()
}

/// Whether the printed check character agrees with `computed`.
///
/// The filler `<` has the value 0, so it agrees with a computed 0 (the form used for an empty
/// optional field); any other non-digit never agrees.
pub(crate) fn agrees(printed: char, computed: u8) -> bool {
    match printed {
        '0'..='9' => char_value(printed) == Some(u32::from(computed)),
        '<' => computed == 0,
        _ => false,
    }
}

/// Whether two characters are indistinguishable to every check digit (values congruent mod 10).
pub fn is_blind_pair(a: char, b: char) -> bool {
    match (char_value(a), char_value(b)) {
        (Some(x), Some(y)) => a != b && x % 10 == y % 10,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_from_part_3() {
        assert_eq!(compute("520727".chars()), Some(3));
        assert_eq!(compute("AB2134<<<".chars()), Some(5));
        assert_eq!(compute("L898902C3".chars()), Some(6));
    }

    #[test]
    fn composite_of_part_3_example_4() {
        let input = "D231458907<<<<<<<<<<<<<<<34071279507122<<<<<<<<<<<";
        assert_eq!(compute(input.chars()), Some(2));
    }

    #[test]
    fn characters_outside_the_alphabet_have_no_check_digit() {
        assert_eq!(compute("AB£".chars()), None);
        assert_eq!(compute("ab".chars()), None);
    }

    #[test]
    fn filler_agrees_only_with_zero() {
        assert!(agrees('<', 0));
        assert!(!agrees('<', 4));
        assert!(agrees('7', 7));
        assert!(!agrees('O', 0));
    }

    #[test]
    fn blind_pairs_are_congruent_mod_ten() {
        assert!(is_blind_pair('K', '<'));
        assert!(is_blind_pair('1', 'L'));
        assert!(is_blind_pair('6', 'G'));
        assert!(!is_blind_pair('O', '0'));
        assert!(!is_blind_pair('B', '8'));
        assert!(!is_blind_pair('A', 'A'));
    }
}
