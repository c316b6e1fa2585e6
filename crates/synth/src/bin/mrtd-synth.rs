//! Generates a labelled set of synthetic MRZ photos and a `MANIFEST.tsv`.
//!
//! Usage: `mrtd-synth --out DIR [--count N] [--seed N] [--font PATH] [--min-char-px N]
//! [--max-char-px N] [--negative-every N] [--random-names] [--more-faults]`. The same seed
//! always gives the same set. `--random-names` fills the name fields with uniformly random
//! letters; `--more-faults` adds dense security print, shadows, motion blur and pen strokes.

#[path = "common/mod.rs"]
mod common;

use std::path::PathBuf;

use common::{load_font, number, parse_flags, usage_error};
use mrtd_synth::export::export_set;
use mrtd_synth::{DEBIAN_OCRB_PATH, SceneOptions};

const TOOL: &str = "mrtd-synth";
const USAGE: &str = "usage: mrtd-synth --out DIR [--count N] [--seed N] [--font PATH] \
                     [--min-char-px N] [--max-char-px N] [--negative-every N] [--random-names] \
                     [--more-faults]";

fn main() {
    let mut out = None;
    let mut count = 500usize;
    let mut seed = 1u64;
    let mut font_path = PathBuf::from(DEBIAN_OCRB_PATH);
    let mut options = SceneOptions::default();
    let mut negative_every = 25usize;
    let (mut random_names, mut more_faults) = (false, false);
    parse_flags(
        TOOL,
        USAGE,
        |flag| {
            match flag {
                "--random-names" => random_names = true,
                "--more-faults" => more_faults = true,
                _ => return false,
            }
            true
        },
        |flag, value| {
            match flag {
                "--out" => out = Some(PathBuf::from(value)),
                "--count" => count = number(flag, value)?,
                "--seed" => seed = number(flag, value)?,
                "--font" => font_path = PathBuf::from(value),
                "--min-char-px" => options.min_char_px = number(flag, value)?,
                "--max-char-px" => options.max_char_px = number(flag, value)?,
                "--negative-every" => negative_every = number(flag, value)?,
                other => return Err(format!("unknown flag {other}")),
            }
            Ok(())
        },
    );
    options.random_names = random_names;
    options.more_faults = more_faults;
    let Some(out) = out else { usage_error(TOOL, USAGE, "--out DIR is required") };
    let font = load_font(TOOL, &font_path);
    if let Err(error) = export_set(&font, &out, count, seed, &options, negative_every) {
        eprintln!("{TOOL}: {error}");
        std::process::exit(1);
    }
    eprintln!("wrote {count} images and MANIFEST.tsv to {}", out.display());
}
