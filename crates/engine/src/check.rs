//! ICAO 9303 check digits, used to choose between candidate readings.

/// Returns the value of an MRZ character for check digit purposes.
pub fn char_value(symbol: u8) -> u32 {
    match symbol {
        b'0'..=b'9' => u32::from(symbol - b'0'),
        b'A'..=b'Z' => u32::from(symbol - b'A') + 10,
        _ => 0,
    }
}

/// Computes the check digit (weights 7, 3, 1) over MRZ characters.
pub fn check_digit(field: &[u8]) -> u8 {
    const WEIGHTS: [u32; 3] = [7, 3, 1];
    let sum: u32 = field.iter().enumerate().map(|(i, &c)| char_value(c) * WEIGHTS[i % 3]).sum();
    b'0' + (sum % 10) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_examples_from_part_3() {
        assert_eq!(check_digit(b"520727"), b'3');
        assert_eq!(check_digit(b"AB2134<<<"), b'5');
        assert_eq!(check_digit(b"L898902C3"), b'6');
    }
}
