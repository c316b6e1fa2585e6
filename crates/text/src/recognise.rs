//! Line recognition: PP-OCRv4's recogniser reads a line scaled to 48 pixels high and gives,
//! for every 8 pixels along it, a probability for each symbol and for none (CTC's blank);
//! the likeliest symbol per step, repeats and blanks dropped, is the text.

use image::RgbImage;
use image::imageops::{FilterType, crop_imm, resize};
use rten::ctc::CtcDecoder;
use rten::{Model, RunOptions};
use rten_tensor::NdTensor;
use rten_tensor::prelude::*;

use crate::{Line, TextError};

/// The height the recogniser reads at.
const HEIGHT: u32 = 48;
/// The longest line it is given, in its pixels (a line of some 80 characters).
const MAX_WIDTH: u32 = 1920;

pub(crate) fn line(
    model: &Model,
    alphabet: &[char],
    image: &RgbImage,
    bbox: [f32; 4],
    options: &RunOptions,
) -> Result<Option<Line>, TextError> {
    let (width, height) = image.dimensions();
    let x0 = bbox[0].max(0.0).floor() as u32;
    let y0 = bbox[1].max(0.0).floor() as u32;
    let x1 = (bbox[2].ceil() as u32).min(width);
    let y1 = (bbox[3].ceil() as u32).min(height);
    if x1 <= x0 + 1 || y1 <= y0 + 1 {
        return Ok(None);
    }
    let cut = crop_imm(image, x0, y0, x1 - x0, y1 - y0).to_image();
    let scaled_width = ((HEIGHT as f32 * cut.width() as f32 / cut.height() as f32).round() as u32)
        .clamp(16, MAX_WIDTH);
    let scaled = resize(&cut, scaled_width, HEIGHT, FilterType::Triangle);
    let input = crate::planes(&scaled, |_, value| f32::from(value) / 127.5 - 1.0);
    let output = model
        .run_one(input.view().into(), Some(options.clone()))
        .map_err(|_| TextError::Run { network: "recognition" })?;
    let steps: NdTensor<f32, 3> =
        output.try_into().map_err(|_| TextError::Run { network: "recognition" })?;
    let [_, _, classes] = steps.shape();
    if classes != alphabet.len() + 1 {
        return Err(TextError::Run { network: "recognition" });
    }
    let probabilities = steps.slice(0);
    let decoded = CtcDecoder::new().decode_greedy(probabilities.view());
    let mut read: Vec<(char, f32)> = Vec::new();
    for step in decoded.steps() {
        let Some(&symbol) = alphabet.get(step.label as usize - 1) else { continue };
        read.push((symbol, probabilities[[step.pos as usize, step.label as usize]]));
    }
    // Spaces at either end are the gap the box was grown by, not text.
    let start = read.iter().position(|(symbol, _)| !symbol.is_whitespace());
    let end = read.iter().rposition(|(symbol, _)| !symbol.is_whitespace());
    let (Some(start), Some(end)) = (start, end) else { return Ok(None) };
    let read = &read[start..=end];
    let text: String = read.iter().map(|(symbol, _)| symbol).collect();
    let char_confidences: Vec<f32> = read.iter().map(|&(_, p)| p).collect();
    let confidence = char_confidences.iter().sum::<f32>() / char_confidences.len() as f32;
    Ok(Some(Line {
        text,
        bbox: [x0 as f32, y0 as f32, x1 as f32, y1 as f32],
        confidence,
        char_confidences,
    }))
}
