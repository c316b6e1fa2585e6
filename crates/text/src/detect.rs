//! Text detection: PP-OCRv4's DB network gives each pixel a probability of lying inside
//! text shrunk towards its centre line; the probable pixels are joined into components and
//! each component's box is grown back by the shrink DB trained with (its "unclip").

use image::RgbImage;
use image::imageops::{FilterType, resize};
use rten::{Model, RunOptions};
use rten_tensor::NdTensor;
use rten_tensor::prelude::*;

use crate::TextError;

/// The longest side the detector sees, in pixels (PaddleOCR's default limit).
const MAX_SIDE: u32 = 960;
/// A pixel belongs to text above this probability (PaddleOCR's `det_db_thresh`).
const PIXEL_THRESHOLD: f32 = 0.3;
/// A component is text when its pixels' mean probability is above this (`det_db_box_thresh`).
const BOX_THRESHOLD: f32 = 0.6;
/// How far a box is grown: its area times this over its perimeter (`det_db_unclip_ratio`).
const UNCLIP_RATIO: f32 = 1.6;
/// Components thinner than this, in the detector's pixels, are noise.
const MIN_SIDE: usize = 3;

/// The ImageNet mean and deviation of each channel, in the blue, green, red order the
/// network was trained on.
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

/// A side scaled to fit [`MAX_SIDE`] and rounded to the network's stride of 32.
fn network_side(side: u32, scale: f32) -> u32 {
    (((side as f32 * scale) / 32.0).round() as u32 * 32).max(32)
}

pub(crate) fn boxes(
    model: &Model,
    image: &RgbImage,
    options: &RunOptions,
) -> Result<Vec<[f32; 4]>, TextError> {
    let (width, height) = image.dimensions();
    if width == 0 || height == 0 {
        return Ok(Vec::new());
    }
    let scale = (MAX_SIDE as f32 / width.max(height) as f32).min(1.0);
    let (net_w, net_h) = (network_side(width, scale), network_side(height, scale));
    let resized = resize(image, net_w, net_h, FilterType::Triangle);
    let (w, h) = (net_w as usize, net_h as usize);
    let input = crate::planes(&resized, |channel, value| {
        (f32::from(value) / 255.0 - MEAN[channel]) / STD[channel]
    });
    let output = model
        .run_one(input.view().into(), Some(options.clone()))
        .map_err(|_| TextError::Run { network: "detection" })?;
    let map: NdTensor<f32, 4> =
        output.try_into().map_err(|_| TextError::Run { network: "detection" })?;
    if map.shape() != [1, 1, h, w] {
        return Err(TextError::Run { network: "detection" });
    }
    let probability: Vec<f32> = map.iter().copied().collect();
    let (sx, sy) = (width as f32 / w as f32, height as f32 / h as f32);
    let mut found: Vec<[f32; 4]> = components(&probability, w, h)
        .into_iter()
        .map(|[x0, y0, x1, y1]| {
            [
                (x0 * sx).max(0.0),
                (y0 * sy).max(0.0),
                (x1 * sx).min(width as f32),
                (y1 * sy).min(height as f32),
            ]
        })
        .collect();
    found.sort_by(|a, b| (a[1] + a[3]).total_cmp(&(b[1] + b[3])).then(a[0].total_cmp(&b[0])));
    Ok(found)
}

/// The grown boxes of the probability map's text components, in the map's pixels.
fn components(probability: &[f32], w: usize, h: usize) -> Vec<[f32; 4]> {
    let mut seen = vec![false; w * h];
    let mut stack = Vec::new();
    let mut boxes = Vec::new();
    for start in 0..w * h {
        if seen[start] || probability[start] <= PIXEL_THRESHOLD {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
        let (mut count, mut sum) = (0usize, 0.0f32);
        while let Some(at) = stack.pop() {
            let (x, y) = (at % w, at / w);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            count += 1;
            sum += probability[at];
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, -1), (-1, 1), (1, 1)] {
                let (nx, ny) = (x as isize + dx, y as isize + dy);
                if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                    continue;
                }
                let next = ny as usize * w + nx as usize;
                if !seen[next] && probability[next] > PIXEL_THRESHOLD {
                    seen[next] = true;
                    stack.push(next);
                }
            }
        }
        let (bw, bh) = (x1 + 1 - x0, y1 + 1 - y0);
        if bw.min(bh) < MIN_SIDE || sum / (count as f32) < BOX_THRESHOLD {
            continue;
        }
        let (bw, bh) = (bw as f32, bh as f32);
        let grow = bw * bh * UNCLIP_RATIO / (2.0 * (bw + bh));
        boxes.push([
            x0 as f32 - grow,
            y0 as f32 - grow,
            (x1 + 1) as f32 + grow,
            (y1 + 1) as f32 + grow,
        ]);
    }
    boxes
}
