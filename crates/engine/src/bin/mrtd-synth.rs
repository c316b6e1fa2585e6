//! Generates a labelled set of synthetic MRZ photos and a `MANIFEST.tsv`.
//!
//! Usage: `mrtd-synth --out DIR [--count N] [--seed N] [--font PATH] [--min-char-px N]
//! [--max-char-px N] [--negative-every N] [--random-names] [--more-faults]`. The same seed
//! always gives the same set. `--random-names` fills the name fields with uniformly random
//! letters; `--more-faults` adds dense security print, shadows and motion blur.

use std::path::PathBuf;

use mrtd_engine::synth::export::export_set;
use mrtd_engine::synth::{DEBIAN_OCRB_PATH, OcrFont, SceneOptions};

fn main() {
    let mut out = None;
    let mut count = 500usize;
    let mut seed = 1u64;
    let mut font_path = PathBuf::from(DEBIAN_OCRB_PATH);
    let mut options = SceneOptions::default();
    let mut negative_every = 25usize;
    let mut iter = std::env::args().skip(1);
    while let Some(flag) = iter.next() {
        if flag == "--random-names" {
            options.random_names = true;
            continue;
        }
        if flag == "--more-faults" {
            options.more_faults = true;
            continue;
        }
        let value = iter.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value)),
            "--count" => count = value.parse().expect("--count takes a number"),
            "--seed" => seed = value.parse().expect("--seed takes a number"),
            "--font" => font_path = PathBuf::from(value),
            "--min-char-px" => options.min_char_px = value.parse().expect("a number"),
            "--max-char-px" => options.max_char_px = value.parse().expect("a number"),
            "--negative-every" => negative_every = value.parse().expect("a number"),
            other => panic!("unknown flag {other}"),
        }
    }
    let out = out.expect("--out DIR is required");
    let font_bytes = std::fs::read(&font_path).unwrap_or_else(|error| {
        panic!("cannot read the OCR-B font at {}: {error}", font_path.display())
    });
    let font = OcrFont::from_bytes(font_bytes).expect("an OpenType font");
    if let Err(error) = export_set(&font, &out, count, seed, &options, negative_every) {
        eprintln!("mrtd-synth: {error}");
        std::process::exit(1);
    }
    eprintln!("wrote {count} images and MANIFEST.tsv to {}", out.display());
}
