//! A HEIC over the pixel limit (as an iPhone's 48 MP photo is over the default 40 MP) is read
//! at half size, in full-size geometry; one more than twice over it is refused.

use std::path::PathBuf;

use mrtd_engine::{EngineBuilder, ImageError, ParseOptions, Status};

fn grid_heic() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/heic/100_pass2-uto-grid.heic");
    std::fs::read(path).expect("the HEIC fixture")
}

#[test]
fn a_heic_over_the_pixel_limit_is_read_at_half_size() {
    // The fixture is 2048 × 1536 (3.1 MP): over a 2 MP limit, within twice it.
    let engine = EngineBuilder::new().max_pixels(2_000_000).build();
    let reading = engine.read(&grid_heic(), &ParseOptions::default()).expect("read, not refused");
    assert_eq!(reading.status, Status::Read, "{:?}", reading.diagnostics);
    assert_eq!(reading.reading.as_ref().unwrap().fields.document_number, "D23145890");
    assert_eq!(
        (reading.image_width, reading.image_height, reading.image_format),
        (2048, 1536, "heic")
    );
    let region = reading.region.expect("a region");
    assert!(region.iter().any(|corner| corner.0 > 1024.0), "full-size geometry: {region:?}");

    let strict = EngineBuilder::new().max_pixels(1_000_000).build();
    match strict.read(&grid_heic(), &ParseOptions::default()) {
        Err(ImageError::TooManyPixels { width: 2048, height: 1536, .. }) => {}
        other => panic!("{:?}", other.map(|r| r.status)),
    }
}
