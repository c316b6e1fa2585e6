//! Writes a downscaled PNG copy of an image, for looking at photos while tuning.
//!
//! Usage: `cargo run --example preview -- INPUT OUTPUT.png [MAX_SIDE]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let max_side: u32 = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(800);
    let image = image::open(&args[1]).expect("a readable image");
    image.thumbnail(max_side, max_side).save(&args[2]).expect("a writable output");
}
