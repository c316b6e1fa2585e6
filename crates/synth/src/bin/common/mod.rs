//! What the engine's command-line tools share: reading their flags, and the font.

use std::path::Path;

use mrtd_synth::{OcrFont, SceneOptions};

/// Ends the program with a message and the usage, as a mistyped command line should.
pub fn usage_error(tool: &str, usage: &str, message: &str) -> ! {
    eprintln!("{tool}: {message}\n{usage}");
    std::process::exit(2);
}

/// Flags as they come: `--help` answered with the usage, flags that take no value
/// passed to `switch` (which says whether it knew the flag), the others with their value
/// to `valued`.
pub fn parse_flags(
    tool: &str,
    usage: &str,
    mut switch: impl FnMut(&str) -> bool,
    mut valued: impl FnMut(&str, &str) -> Result<(), String>,
) {
    let mut iter = std::env::args().skip(1);
    while let Some(flag) = iter.next() {
        if flag == "--help" || flag == "-h" {
            println!("{usage}");
            std::process::exit(0);
        }
        if switch(&flag) {
            continue;
        }
        let Some(value) = iter.next() else {
            usage_error(tool, usage, &format!("{flag} needs a value"))
        };
        if let Err(message) = valued(&flag, &value) {
            usage_error(tool, usage, &message);
        }
    }
}

/// The value of a flag that takes a number.
pub fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value.parse().map_err(|_| format!("{flag} takes a number, not {value:?}"))
}

/// Loads the OCR-B font, or ends the program saying where to get it.
pub fn load_font(tool: &str, path: &Path) -> OcrFont {
    let font = std::fs::read(path)
        .map_err(|error| format!("cannot read the OCR-B font at {} ({error})", path.display()))
        .and_then(|bytes| {
            OcrFont::from_bytes(bytes)
                .map_err(|_| format!("{} is not an OpenType font", path.display()))
        });
    font.unwrap_or_else(|message| {
        eprintln!("{tool}: {message}; on Debian, apt-get install fonts-ocr-b gives it");
        std::process::exit(1);
    })
}

/// The scenes the classifier is trained on: `mrtd-train` trains on them, `mrtd-cells` measures
/// on fresh ones. `more_faults` adds the handheld faults of `mrtd-synth --more-faults`.
// Each binary compiles this module; not every one calls every function.
#[allow(dead_code)]
pub fn training_options(more_faults: bool) -> SceneOptions {
    SceneOptions {
        min_char_px: 5.0,
        max_char_px: 30.0,
        max_tilt_degrees: 15.0,
        quarter_turns: true,
        perspective: 0.08,
        degrade: true,
        random_text: 0.5,
        with_mrz: true,
        random_names: false,
        more_faults,
        // Dark clutter at and under the lines, as cluttered photos can put there.
        clear_zone: false,
        print_weights: false,
        // Focus blur up to 1.3 times the synthetic test sets', as soft as a phone that
        // focused on the portrait makes the zone; the handheld faults' network has motion
        // blur instead (trained with more blur too, it read the handheld-faults sets worse).
        blur_scale: if more_faults { 1.0 } else { 1.3 },
    }
}
