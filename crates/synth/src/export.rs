//! Writing a generated set to disk: images in every supported format and a manifest.

use std::io::Write;
use std::path::Path;

use crate::{OcrFont, Rng, SceneOptions, SynthFormat, generate};

/// The image container formats the generator cycles through.
pub const FILE_FORMATS: [(image::ImageFormat, &str); 5] = [
    (image::ImageFormat::Jpeg, "jpg"),
    (image::ImageFormat::Png, "png"),
    (image::ImageFormat::WebP, "webp"),
    (image::ImageFormat::Tiff, "tiff"),
    (image::ImageFormat::Bmp, "bmp"),
];

/// Why a set could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// Creating the folder or writing the manifest failed.
    #[error("cannot write the set: {0}")]
    Io(#[from] std::io::Error),
    /// Encoding an image failed.
    #[error("cannot encode an image: {0}")]
    Encode(#[from] image::ImageError),
}

/// Generates `count` labelled photos into `dir` with a `MANIFEST.tsv` in the
/// layout of the real specimen manifest (`file`, `ground_truth_mrz`, ...).
///
/// One photo in `negative_every` has no MRZ (0 disables negatives).
pub fn export_set(
    font: &OcrFont,
    dir: &Path,
    count: usize,
    seed: u64,
    options: &SceneOptions,
    negative_every: usize,
) -> Result<(), ExportError> {
    std::fs::create_dir_all(dir)?;
    let mut manifest = std::fs::File::create(dir.join("MANIFEST.tsv"))?;
    writeln!(manifest, "file\tformat\tground_truth_mrz\tnotes")?;
    let mut rng = Rng::new(seed);
    for idx in 0..count {
        let format = SynthFormat::ALL[idx % SynthFormat::ALL.len()];
        let (file_format, extension) =
            FILE_FORMATS[(idx / SynthFormat::ALL.len()) % FILE_FORMATS.len()];
        let negative = negative_every > 0 && idx % negative_every == negative_every - 1;
        let scene_options = SceneOptions { with_mrz: !negative, ..options.clone() };
        let document = generate(&mut rng, font, format, &scene_options);
        let name = format!("synth_{idx:05}_{}.{extension}", format.name().to_lowercase());
        let buffer = image::GrayImage::from_raw(
            document.image.width as u32,
            document.image.height as u32,
            document.image.data,
        )
        .expect("buffer size matches dimensions");
        // WebP and some TIFF readers expect colour, so every file is written as RGB.
        let rgb = image::DynamicImage::ImageLuma8(buffer).into_rgb8();
        rgb.save_with_format(dir.join(&name), file_format)?;
        let format_name = if negative { "NONE" } else { format.name() };
        writeln!(
            manifest,
            "{name}\t{format_name}\t{}\tsynthetic seed {seed}",
            document.lines.join("|")
        )?;
    }
    Ok(())
}
