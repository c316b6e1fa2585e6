//! Trains the MRZ cell classifier on synthetic OCR-B photos.
//!
//! Usage: `mrtd-train [--font PATH] [--out PATH] [--seed N] [--scenes N] [--epochs N]
//! [--more-faults] [--cnn]`. The run is deterministic for a given seed, whatever the machine's
//! core count. `--more-faults` renders the scenes with the handheld faults of
//! `mrtd-synth --more-faults` (security print, shadows, motion blur) as well. `--cnn` trains the
//! convolutional network (`mrtd_engine::model::Cnn`) instead of a perceptron, for 4 epochs
//! unless `--epochs` says otherwise.

#[path = "common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Instant;

use common::{load_font, number, parse_flags, training_options};
use mrtd_engine::cells::{CELL_LEN, CellGeometry, Margins, sample_cell};
use mrtd_engine::model::cnn::Scratch;
use mrtd_engine::model::{Cnn, CnnShape, Mlp, N_CLASSES, N_HIDDEN, class_of, softmax};
use mrtd_synth::{DEBIAN_OCRB_PATH, OcrFont, Rng, SceneOptions, SynthFormat, generate};

const TOOL: &str = "mrtd-train";
/// Each batch's gradient is the sum of this many shards, each computed on a thread of its own
/// and added in shard order, so the weights are the same on a machine of any core count.
const SHARDS: usize = 2;
const USAGE: &str = "usage: mrtd-train [--font PATH] [--out PATH] [--seed N] [--scenes N] \
                     [--epochs N] [--more-faults] [--cnn]";

struct Args {
    font: PathBuf,
    out: PathBuf,
    seed: u64,
    scenes: usize,
    epochs: usize,
    more_faults: bool,
    cnn: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        font: PathBuf::from(DEBIAN_OCRB_PATH),
        out: PathBuf::from("crates/engine/model/mrz-cells.bin"),
        seed: 9303,
        scenes: 2000,
        epochs: 0,
        more_faults: false,
        cnn: false,
    };
    let mut more_faults = false;
    let mut cnn = false;
    parse_flags(
        TOOL,
        USAGE,
        |flag| {
            let faults = flag == "--more-faults";
            more_faults |= faults;
            cnn |= flag == "--cnn";
            faults || flag == "--cnn"
        },
        |flag, value| {
            match flag {
                "--font" => args.font = PathBuf::from(value),
                "--out" => args.out = PathBuf::from(value),
                "--seed" => args.seed = number(flag, value)?,
                "--scenes" => args.scenes = number(flag, value)?,
                "--epochs" => args.epochs = number(flag, value)?,
                other => return Err(format!("unknown flag {other}")),
            }
            Ok(())
        },
    );
    args.more_faults = more_faults;
    args.cnn = cnn;
    if args.epochs == 0 {
        args.epochs = if cnn { CNN_EPOCHS } else { MLP_EPOCHS };
    }
    args
}

/// Perturbs a true cell the way an imperfect localiser would.
fn jitter(rng: &mut Rng, cell: &CellGeometry) -> CellGeometry {
    let along_len = cell.along.0.hypot(cell.along.1);
    let across_len = cell.across.0.hypot(cell.across.1);
    let (ux, uy) = (cell.along.0 / along_len, cell.along.1 / along_len);
    let (vx, vy) = (cell.across.0 / across_len, cell.across.1 / across_len);
    let shift_u = rng.range(-0.15, 0.15) * along_len;
    let shift_v = rng.range(-0.12, 0.12) * across_len;
    let scale_u = rng.range(0.88, 1.12);
    let scale_v = rng.range(0.85, 1.15);
    let turn = rng.range(-3.0, 3.0).to_radians();
    let (sin, cos) = turn.sin_cos();
    let rotate = |(x, y): (f32, f32)| (x * cos - y * sin, x * sin + y * cos);
    // The localiser keeps the cell's vertical square to the row, or leans it by
    // the part of the columns' lean that changes along the lines, neither of
    // them quite the glyphs' under perspective, so the vertical is sheared a little.
    let shear = rng.range(-6.0, 6.0).to_radians();
    let (shear_sin, shear_cos) = shear.sin_cos();
    let across = rotate((cell.across.0 * scale_v, cell.across.1 * scale_v));
    CellGeometry {
        centre: (
            cell.centre.0 + ux * shift_u + vx * shift_v,
            cell.centre.1 + uy * shift_u + vy * shift_v,
        ),
        along: rotate((cell.along.0 * scale_u, cell.along.1 * scale_u)),
        across: (
            across.0 * shear_cos - across.1 * shear_sin,
            across.0 * shear_sin + across.1 * shear_cos,
        ),
    }
}

fn make_samples(
    font: &OcrFont,
    options: &SceneOptions,
    seed: u64,
    n_scenes: usize,
    per_cell: usize,
) -> (Vec<f32>, Vec<u8>) {
    // The scenes are split into a fixed number of parts with their own seeds,
    // so the result does not depend on how many threads render them.
    const N_PARTS: usize = 8;
    let parts: Vec<(Vec<f32>, Vec<u8>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..N_PARTS)
            .map(|part| {
                scope.spawn(move || {
                    let n = n_scenes / N_PARTS + usize::from(part < n_scenes % N_PARTS);
                    make_part(
                        font,
                        options,
                        seed.wrapping_mul(31).wrapping_add(part as u64),
                        n,
                        per_cell,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("renderer")).collect()
    });
    let mut inputs = Vec::new();
    let mut labels = Vec::new();
    for (part_inputs, part_labels) in parts {
        inputs.extend(part_inputs);
        labels.extend(part_labels);
    }
    (inputs, labels)
}

fn make_part(
    font: &OcrFont,
    options: &SceneOptions,
    seed: u64,
    n_scenes: usize,
    per_cell: usize,
) -> (Vec<f32>, Vec<u8>) {
    let mut rng = Rng::new(seed);
    let mut inputs = Vec::new();
    let mut labels = Vec::new();
    let mut buffer = [0.0f32; CELL_LEN];
    for scene_idx in 0..n_scenes {
        let format = SynthFormat::ALL[scene_idx % SynthFormat::ALL.len()];
        let document = generate(&mut rng, font, format, options);
        for (line, cells) in document.lines.iter().zip(&document.cells) {
            for (symbol, cell) in line.bytes().zip(cells) {
                for _ in 0..per_cell {
                    let jittered = jitter(&mut rng, cell);
                    sample_cell(&document.image, &jittered, Margins::Keep, &mut buffer);
                    inputs.extend_from_slice(&buffer);
                    labels.push(class_of(symbol).expect("MRZ symbol") as u8);
                }
            }
        }
    }
    (inputs, labels)
}

/// The `idx`-th cell of the samples' inputs.
fn cell(inputs: &[f32], idx: usize) -> &[f32; CELL_LEN] {
    inputs[idx * CELL_LEN..(idx + 1) * CELL_LEN].try_into().expect("cell")
}

/// The cross-entropy loss of `logits` for `label`, leaving in `logits` the loss's gradient
/// with respect to them: the class probabilities less the label's one-hot.
fn cross_entropy(logits: &mut [f32; N_CLASSES], label: u8) -> f32 {
    softmax(logits);
    let label = usize::from(label);
    let loss = -logits[label].max(1e-9).ln();
    logits[label] -= 1.0;
    loss
}

/// Accumulates the gradient of the cross-entropy loss over some samples.
fn gradient(mlp: &Mlp, inputs: &[f32], labels: &[u8], idxs: &[usize], grad: &mut Mlp) -> f32 {
    let mut hidden = vec![0.0; mlp.n_hidden];
    let mut dhidden = vec![0.0; mlp.n_hidden];
    let mut logits = [0.0; N_CLASSES];
    let mut loss = 0.0;
    for &idx in idxs {
        let input = cell(inputs, idx);
        mlp.forward(input, &mut hidden, &mut logits);
        loss += cross_entropy(&mut logits, labels[idx]);
        dhidden.iter_mut().for_each(|d| *d = 0.0);
        for (class, &dz) in logits.iter().enumerate() {
            grad.b2[class] += dz;
            let row = &mut grad.w2[class * mlp.n_hidden..(class + 1) * mlp.n_hidden];
            let wrow = &mlp.w2[class * mlp.n_hidden..(class + 1) * mlp.n_hidden];
            for unit in 0..mlp.n_hidden {
                row[unit] += dz * hidden[unit];
                dhidden[unit] += dz * wrow[unit];
            }
        }
        for unit in 0..mlp.n_hidden {
            if hidden[unit] <= 0.0 {
                continue;
            }
            let dh = dhidden[unit];
            grad.b1[unit] += dh;
            let row = &mut grad.w1[unit * CELL_LEN..(unit + 1) * CELL_LEN];
            for (g, x) in row.iter_mut().zip(input) {
                *g += dh * x;
            }
        }
    }
    loss
}

/// Epochs of a perceptron's training, and of the convolutional network's (which learns in
/// fewer, and costs twice as much an epoch).
const MLP_EPOCHS: usize = 8;
const CNN_EPOCHS: usize = 4;

/// The convolutional network's shape.
const CNN_SHAPE: CnnShape = CnnShape { c1: 8, c2: 16, hidden: 128 };

fn initial_cnn(seed: u64) -> Cnn {
    let mut rng = Rng::new(seed);
    let o = CNN_SHAPE.offsets();
    let fan_in = [9, 0, 9 * CNN_SHAPE.c1, 0, CNN_SHAPE.features(), 0, CNN_SHAPE.hidden, 0];
    let mut params = vec![0.0f32; o[8]];
    for block in 0..8 {
        if fan_in[block] == 0 {
            continue;
        }
        let scale = (2.0 / fan_in[block] as f32).sqrt();
        for p in &mut params[o[block]..o[block + 1]] {
            *p = rng.normal() * scale;
        }
    }
    Cnn { shape: CNN_SHAPE, params }
}

fn cnn_gradient(cnn: &Cnn, inputs: &[f32], labels: &[u8], idxs: &[usize], grad: &mut [f32]) -> f32 {
    let mut scratch = Scratch::new(cnn.shape);
    let mut logits = [0.0; N_CLASSES];
    let mut loss = 0.0;
    for &idx in idxs {
        let input = cell(inputs, idx);
        cnn.forward(input, &mut scratch, &mut logits);
        loss += cross_entropy(&mut logits, labels[idx]);
        cnn.backward(&scratch, &logits, grad);
    }
    loss
}

/// What stochastic gradient descent needs of a network: its gradient over some samples,
/// and its parameters and gradient block by block, in the same order.
trait Trainable: Sync {
    /// A gradient, in the network's own shape.
    type Grad: Send;
    /// A gradient of zeros.
    fn zero_grad(&self) -> Self::Grad;
    /// Adds the cross-entropy loss's gradient over the samples `idxs` to `grad`; returns the
    /// loss.
    fn gradient(&self, inputs: &[f32], labels: &[u8], idxs: &[usize], grad: &mut Self::Grad)
    -> f32;
    /// The parameters, block by block.
    fn blocks(&mut self) -> Vec<&mut [f32]>;
    /// A gradient's blocks, in the order of [`Trainable::blocks`].
    fn grad_blocks(grad: &Self::Grad) -> Vec<&[f32]>;
    /// The class probabilities of one cell.
    fn probabilities(&self, input: &[f32; CELL_LEN]) -> [f32; N_CLASSES];
}

impl Trainable for Mlp {
    type Grad = Mlp;

    fn zero_grad(&self) -> Mlp {
        Mlp {
            n_hidden: self.n_hidden,
            w1: vec![0.0; self.w1.len()],
            b1: vec![0.0; self.b1.len()],
            w2: vec![0.0; self.w2.len()],
            b2: vec![0.0; self.b2.len()],
        }
    }

    fn gradient(&self, inputs: &[f32], labels: &[u8], idxs: &[usize], grad: &mut Mlp) -> f32 {
        gradient(self, inputs, labels, idxs, grad)
    }

    fn blocks(&mut self) -> Vec<&mut [f32]> {
        vec![&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2]
    }

    fn grad_blocks(grad: &Mlp) -> Vec<&[f32]> {
        vec![&grad.w1, &grad.b1, &grad.w2, &grad.b2]
    }

    fn probabilities(&self, input: &[f32; CELL_LEN]) -> [f32; N_CLASSES] {
        Mlp::probabilities(self, input)
    }
}

impl Trainable for Cnn {
    type Grad = Vec<f32>;

    fn zero_grad(&self) -> Vec<f32> {
        vec![0.0; self.params.len()]
    }

    fn gradient(&self, inputs: &[f32], labels: &[u8], idxs: &[usize], grad: &mut Vec<f32>) -> f32 {
        cnn_gradient(self, inputs, labels, idxs, grad)
    }

    fn blocks(&mut self) -> Vec<&mut [f32]> {
        vec![&mut self.params]
    }

    fn grad_blocks(grad: &Vec<f32>) -> Vec<&[f32]> {
        vec![grad]
    }

    fn probabilities(&self, input: &[f32; CELL_LEN]) -> [f32; N_CLASSES] {
        Cnn::probabilities(self, input)
    }
}

/// The share of `labels` the network's likeliest symbol gets right.
fn accuracy<N: Trainable>(network: &N, inputs: &[f32], labels: &[u8]) -> f32 {
    let mut correct = 0usize;
    for (idx, &label) in labels.iter().enumerate() {
        let input = cell(inputs, idx);
        let probs = network.probabilities(input);
        let best = probs.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i);
        if best == Some(usize::from(label)) {
            correct += 1;
        }
    }
    correct as f32 / labels.len().max(1) as f32
}

/// Trains `network` on the samples: SGD with momentum, batches of 64 in an order shuffled
/// each epoch, a cosine learning rate, each batch's gradient the sum of [`SHARDS`] shards.
fn train<N: Trainable>(
    args: &Args,
    mut network: N,
    (inputs, labels): (&[f32], &[u8]),
    (val_inputs, val_labels): (&[f32], &[u8]),
    started: Instant,
) -> N {
    let mut velocity: Vec<Vec<f32>> =
        network.blocks().iter().map(|block| vec![0.0; block.len()]).collect();
    let mut rng = Rng::new(args.seed ^ 0x5EED);
    let batch = 64;
    let n_samples = labels.len();
    let total_steps = args.epochs * n_samples.div_ceil(batch);
    let mut step = 0usize;
    for epoch in 0..args.epochs {
        let mut order: Vec<usize> = (0..n_samples).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let mut epoch_loss = 0.0;
        for chunk in order.chunks(batch) {
            let progress = step as f32 / total_steps as f32;
            let rate = 0.02 * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()) + 1e-4;
            step += 1;
            let per_shard = chunk.len().div_ceil(SHARDS);
            let results: Vec<(N::Grad, f32)> = std::thread::scope(|scope| {
                let handles: Vec<_> = chunk
                    .chunks(per_shard)
                    .map(|part| {
                        let network = &network;
                        scope.spawn(move || {
                            let mut grad = network.zero_grad();
                            let loss = network.gradient(inputs, labels, part, &mut grad);
                            (grad, loss)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().expect("worker")).collect()
            });
            let scale = 1.0 / chunk.len() as f32;
            let shards: Vec<Vec<&[f32]>> =
                results.iter().map(|(grad, _)| N::grad_blocks(grad)).collect();
            for (block, (weights, velocity)) in
                network.blocks().into_iter().zip(velocity.iter_mut()).enumerate()
            {
                for (idx, (w, v)) in weights.iter_mut().zip(velocity.iter_mut()).enumerate() {
                    let g: f32 = shards.iter().map(|shard| shard[block][idx]).sum::<f32>() * scale;
                    *v = 0.9 * *v - rate * (g + 1e-5 * *w);
                    *w += *v;
                }
            }
            epoch_loss += results.iter().map(|r| r.1).sum::<f32>();
        }
        eprintln!(
            "epoch {}: loss {:.4}, validation accuracy {:.4} ({:.1?})",
            epoch + 1,
            epoch_loss / n_samples as f32,
            accuracy(&network, val_inputs, val_labels),
            started.elapsed()
        );
    }
    network
}

fn main() {
    let args = parse_args();
    let font = load_font(TOOL, &args.font);
    let options = training_options(args.more_faults);
    let started = Instant::now();
    let (inputs, labels) = make_samples(&font, &options, args.seed, args.scenes, 3);
    let (val_inputs, val_labels) =
        make_samples(&font, &options, args.seed ^ 0xABCD, args.scenes / 10 + 1, 1);
    eprintln!(
        "{} training cells, {} validation cells in {:.1?}",
        labels.len(),
        val_labels.len(),
        started.elapsed()
    );

    let samples = (inputs.as_slice(), labels.as_slice());
    let validation = (val_inputs.as_slice(), val_labels.as_slice());
    let bytes = if args.cnn {
        train(&args, initial_cnn(args.seed), samples, validation, started).to_bytes()
    } else {
        let mlp = mrtd_synth::initial_weights(N_HIDDEN, args.seed);
        train(&args, mlp, samples, validation, started).to_bytes()
    };
    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent).expect("create the model directory");
    }
    std::fs::write(&args.out, bytes).expect("write the weights");
    eprintln!("wrote {}", args.out.display());
}
