//! A blank grey PNG, written by hand so that the driver needs no image codec.
//!
//! The `input_required` round trip needs a photo with no MRZ on it. The picture is
//! encoded with stored (uncompressed) deflate blocks, which every PNG decoder accepts.

/// A `width` x `height` RGB picture of one grey level, as PNG bytes.
pub fn blank_png(width: u32, height: u32, grey: u8) -> Vec<u8> {
    let row = 1 + 3 * width as usize;
    let mut raw = Vec::with_capacity(row * height as usize);
    for _ in 0..height {
        raw.push(0); // Filter type 0: the row as is.
        raw.extend(std::iter::repeat_n(grey, 3 * width as usize));
    }
    let mut header = Vec::with_capacity(13);
    header.extend(width.to_be_bytes());
    header.extend(height.to_be_bytes());
    header.extend([8, 2, 0, 0, 0]); // 8 bits per channel, RGB, deflate, no interlace.

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend((data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend(kind);
    png.extend(data);
    let crc = crc32fast::hash(&png[start..]);
    png.extend(crc.to_be_bytes());
}

/// A zlib stream of `data` in stored deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let mut blocks = data.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend([1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let len = block.len() as u16;
        out.extend(len.to_le_bytes());
        out.extend((!len).to_le_bytes());
        out.extend(block);
    }
    out.extend(adler32(data).to_be_bytes());
    out
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler32_matches_its_standard_value() {
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn the_picture_is_a_well_formed_png() {
        let png = blank_png(320, 200, 200);
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82]));
        // IHDR: length 13, then the size.
        assert_eq!(&png[8..16], &[0, 0, 0, 13, b'I', b'H', b'D', b'R']);
        assert_eq!(&png[16..24], &[0, 0, 1, 64, 0, 0, 0, 200]);
        // The stored blocks hold every pixel byte plus one filter byte per row.
        let raw: usize = 200 * (1 + 3 * 320);
        let idat_len = u32::from_be_bytes(png[33..37].try_into().unwrap()) as usize;
        let blocks = raw.div_ceil(65_535);
        assert_eq!(idat_len, 2 + raw + 5 * blocks + 4);
    }
}
