//! A small convolutional network over a cell: two 3 × 3 convolutions, each followed by a
//! ReLU and a 2 × 2 max-pool, then one hidden layer. Its features are the same wherever
//! in the window a stroke falls, which a perceptron's are not.

use super::{ModelError, N_CLASSES, dot, read_floats, read_header, softmax, write_weights};
use crate::cells::{CELL_H, CELL_LEN, CELL_W};

const MAGIC: &[u8; 8] = b"MRTDCNN1";

/// The rows and columns after the first pool, and after the second.
const H1: usize = CELL_H / 2;
const W1: usize = CELL_W / 2;
const H2: usize = CELL_H / 4;
const W2: usize = CELL_W / 4;

/// The shape of a network: channels of each convolution and width of the hidden layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CnnShape {
    /// Channels of the first convolution.
    pub c1: usize,
    /// Channels of the second.
    pub c2: usize,
    /// Units of the hidden layer.
    pub hidden: usize,
}

impl CnnShape {
    /// Where each parameter block starts in [`Cnn::params`], and their total length:
    /// `[k1, b1, k2, b2, w3, b3, w4, b4, end]`.
    pub fn offsets(self) -> [usize; 9] {
        let CnnShape { c1, c2, hidden } = self;
        let sizes = [
            c1 * 9,
            c1,
            c2 * c1 * 9,
            c2,
            hidden * c2 * H2 * W2,
            hidden,
            N_CLASSES * hidden,
            N_CLASSES,
        ];
        let mut offsets = [0; 9];
        for (i, size) in sizes.iter().enumerate() {
            offsets[i + 1] = offsets[i] + size;
        }
        offsets
    }

    /// The length of the flattened features the hidden layer reads.
    pub fn features(self) -> usize {
        self.c2 * H2 * W2
    }
}

/// Network weights, every block in one vector (see [`CnnShape::offsets`]).
#[derive(Clone, Debug)]
pub struct Cnn {
    /// The shape.
    pub shape: CnnShape,
    /// The weights and biases, block after block.
    pub params: Vec<f32>,
}

/// What a forward pass leaves behind, for the backward pass and to save allocations.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// The input, padded by one on every side.
    pub input: Vec<f32>,
    /// First convolution after its ReLU, `c1 × CELL_H × (CELL_W + 2)` (see [`convolve`]).
    pub a1: Vec<f32>,
    /// First pool, padded by one: `c1 × (H1 + 2) × (W1 + 2)`.
    pub p1: Vec<f32>,
    /// Second convolution after its ReLU, `c2 × H1 × (W1 + 2)`.
    pub a2: Vec<f32>,
    /// Second pool, flattened: the features.
    pub p2: Vec<f32>,
    /// Hidden layer after its ReLU.
    pub hidden: Vec<f32>,
}

impl Scratch {
    /// Buffers for a network of `shape`.
    pub fn new(shape: CnnShape) -> Scratch {
        Scratch {
            input: vec![0.0; (CELL_H + 2) * (CELL_W + 2)],
            a1: vec![0.0; shape.c1 * CELL_H * (CELL_W + 2)],
            p1: vec![0.0; shape.c1 * (H1 + 2) * (W1 + 2)],
            a2: vec![0.0; shape.c2 * H1 * (W1 + 2)],
            p2: vec![0.0; shape.features()],
            hidden: vec![0.0; shape.hidden],
        }
    }
}

/// A 3 × 3 convolution of `channels_in` padded planes of `H × W` (each `(H + 2) × (W + 2)`)
/// into planes of `H` rows of `W + 2` (the last two of each row are not outputs: computing
/// them lets every kernel tap run over one contiguous span), with biases, then a ReLU.
fn convolve<const H: usize, const W: usize>(
    input: &[f32],
    channels_in: usize,
    kernels: &[f32],
    biases: &[f32],
    out: &mut [f32],
) {
    let plane = (H + 2) * (W + 2);
    let span = H * (W + 2) - 2;
    for (c, out) in out.chunks_exact_mut(H * (W + 2)).enumerate() {
        out.fill(biases[c]);
        for (ci, source) in input.chunks_exact(plane).take(channels_in).enumerate() {
            let kernel = &kernels[(c * channels_in + ci) * 9..][..9];
            for (k, &weight) in kernel.iter().enumerate() {
                let at = (k / 3) * (W + 2) + k % 3;
                for (o, &x) in out[..span].iter_mut().zip(&source[at..at + span]) {
                    *o += weight * x;
                }
            }
        }
        for o in out.iter_mut() {
            *o = o.max(0.0);
        }
    }
}

/// Calls `each(output, largest)` for every 2 × 2 window of `channels` planes of `h` rows of
/// `w + 2` (as [`convolve`] leaves them): `output` the window's place in planes of
/// `(h / 2 + 2 * pad) × (w / 2 + 2 * pad)` (the pool written inside the padding), `largest`
/// the place in `input` of the window's largest value (the first, of equals).
fn windows(
    input: &[f32],
    (channels, h, w): (usize, usize, usize),
    pad: usize,
    mut each: impl FnMut(usize, usize),
) {
    let (oh, ow) = (h / 2, w / 2);
    let (ph, pw) = (oh + 2 * pad, ow + 2 * pad);
    let stride = w + 2;
    for c in 0..channels {
        let plane = c * h * stride;
        for y in 0..oh {
            for x in 0..ow {
                let mut best = plane + (2 * y) * stride + 2 * x;
                for (dy, dx) in [(0, 1), (1, 0), (1, 1)] {
                    let at = plane + (2 * y + dy) * stride + 2 * x + dx;
                    if input[at] > input[best] {
                        best = at;
                    }
                }
                each(c * ph * pw + (y + pad) * pw + x + pad, best);
            }
        }
    }
}

/// A 2 × 2 max-pool of `input` into `out` (see [`windows`]).
fn pool(input: &[f32], planes: (usize, usize, usize), pad: usize, out: &mut [f32]) {
    windows(input, planes, pad, |output, largest| out[output] = input[largest]);
}

impl Cnn {
    /// Reads a weight file written by [`Cnn::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Cnn, ModelError> {
        let [c1, c2, hidden] = read_header(bytes, MAGIC).ok_or(ModelError::BadFormat)?;
        if [c1, c2, hidden].iter().any(|&n| n == 0 || n > 1024) {
            return Err(ModelError::BadFormat);
        }
        let shape = CnnShape { c1, c2, hidden };
        let params = read_floats(bytes, shape.offsets()[8]).ok_or(ModelError::BadFormat)?;
        Ok(Cnn { shape, params })
    }

    /// Serialises the weights as little-endian `f32` after a short header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let CnnShape { c1, c2, hidden } = self.shape;
        write_weights(MAGIC, [c1, c2, hidden], self.params.iter())
    }

    /// The parameter block `i` of [`CnnShape::offsets`].
    fn block(&self, i: usize) -> &[f32] {
        let offsets = self.shape.offsets();
        &self.params[offsets[i]..offsets[i + 1]]
    }

    /// Computes the class logits of one cell, leaving the activations in `scratch`.
    pub fn forward(&self, input: &[f32; CELL_LEN], s: &mut Scratch, logits: &mut [f32; N_CLASSES]) {
        let CnnShape { c1, c2, hidden } = self.shape;
        for (y, row) in input.chunks_exact(CELL_W).enumerate() {
            s.input[(y + 1) * (CELL_W + 2) + 1..][..CELL_W].copy_from_slice(row);
        }
        convolve::<CELL_H, CELL_W>(&s.input, 1, self.block(0), self.block(1), &mut s.a1);
        pool(&s.a1, (c1, CELL_H, CELL_W), 1, &mut s.p1);
        convolve::<H1, W1>(&s.p1, c1, self.block(2), self.block(3), &mut s.a2);
        pool(&s.a2, (c2, H1, W1), 0, &mut s.p2);
        let (w3, b3) = (self.block(4), self.block(5));
        let features = self.shape.features();
        for (unit, h) in s.hidden.iter_mut().enumerate() {
            *h = (dot(&w3[unit * features..(unit + 1) * features], &s.p2) + b3[unit]).max(0.0);
        }
        let (w4, b4) = (self.block(6), self.block(7));
        for (class, logit) in logits.iter_mut().enumerate() {
            *logit = dot(&w4[class * hidden..(class + 1) * hidden], &s.hidden) + b4[class];
        }
    }

    /// Returns class probabilities for one cell.
    pub fn probabilities(&self, input: &[f32; CELL_LEN]) -> [f32; N_CLASSES] {
        let mut scratch = Scratch::new(self.shape);
        let mut logits = [0.0; N_CLASSES];
        self.forward(input, &mut scratch, &mut logits);
        softmax(&mut logits);
        logits
    }

    /// Adds to `grad` (laid out as [`Cnn::params`]) the gradient of the loss whose
    /// derivative by the logits is `dlogits`, for the cell whose forward pass left `s`.
    pub fn backward(&self, s: &Scratch, dlogits: &[f32; N_CLASSES], grad: &mut [f32]) {
        let CnnShape { c1, c2, hidden } = self.shape;
        let o = self.shape.offsets();
        let features = self.shape.features();
        // Output layer.
        let mut dhidden = vec![0.0f32; hidden];
        let w4 = self.block(6);
        for (class, &dz) in dlogits.iter().enumerate() {
            grad[o[7] + class] += dz;
            let g = &mut grad[o[6] + class * hidden..][..hidden];
            for ((g, d), (&h, &w)) in
                g.iter_mut().zip(dhidden.iter_mut()).zip(s.hidden.iter().zip(&w4[class * hidden..]))
            {
                *g += dz * h;
                *d += dz * w;
            }
        }
        // Hidden layer.
        let mut dp2 = vec![0.0f32; features];
        let w3 = self.block(4);
        for unit in 0..hidden {
            if s.hidden[unit] <= 0.0 {
                continue;
            }
            let dh = dhidden[unit];
            grad[o[5] + unit] += dh;
            let g = &mut grad[o[4] + unit * features..][..features];
            for ((g, d), (&x, &w)) in
                g.iter_mut().zip(dp2.iter_mut()).zip(s.p2.iter().zip(&w3[unit * features..]))
            {
                *g += dh * x;
                *d += dh * w;
            }
        }
        // Second pool and ReLU: to the largest of each window, where it was positive.
        let stride2 = W1 + 2;
        let mut da2 = vec![0.0f32; c2 * H1 * stride2];
        unpool(&s.a2, &dp2, (c2, H1, W1), 0, &mut da2);
        // Second convolution: each kernel tap over one contiguous span (see [`convolve`]),
        // whose columns past the outputs have no gradient.
        let plane = (H1 + 2) * stride2;
        let span = H1 * stride2 - 2;
        let mut dp1 = vec![0.0f32; c1 * plane];
        let k2 = self.block(2);
        for c in 0..c2 {
            let d = &da2[c * H1 * stride2..][..span];
            grad[o[3] + c] += d.iter().sum::<f32>();
            for ci in 0..c1 {
                let source = &s.p1[ci * plane..(ci + 1) * plane];
                let back = &mut dp1[ci * plane..(ci + 1) * plane];
                for k in 0..9 {
                    let at = (k / 3) * stride2 + k % 3;
                    grad[o[2] + (c * c1 + ci) * 9 + k] += dot(d, &source[at..at + span]);
                    let weight = k2[(c * c1 + ci) * 9 + k];
                    for (b, &dv) in back[at..at + span].iter_mut().zip(d) {
                        *b += dv * weight;
                    }
                }
            }
        }
        // First pool and ReLU.
        let stride1 = CELL_W + 2;
        let mut da1 = vec![0.0f32; c1 * CELL_H * stride1];
        unpool(&s.a1, &dp1, (c1, CELL_H, CELL_W), 1, &mut da1);
        // First convolution.
        let span = CELL_H * stride1 - 2;
        for c in 0..c1 {
            let d = &da1[c * CELL_H * stride1..][..span];
            grad[o[1] + c] += d.iter().sum::<f32>();
            for k in 0..9 {
                let at = (k / 3) * stride1 + k % 3;
                grad[o[0] + c * 9 + k] += dot(d, &s.input[at..at + span]);
            }
        }
    }
}

/// The gradient of a 2 × 2 max-pool (`d_out`, see [`windows`]) and of the ReLU before it, by
/// the pool's input `input`: each window's gradient to its largest value, where that was
/// positive.
fn unpool(
    input: &[f32],
    d_out: &[f32],
    planes: (usize, usize, usize),
    pad: usize,
    d_in: &mut [f32],
) {
    windows(input, planes, pad, |output, largest| {
        if input[largest] > 0.0 {
            d_in[largest] += d_out[output];
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Cnn {
        let shape = CnnShape { c1: 2, c2: 3, hidden: 5 };
        let n = shape.offsets()[8];
        // Deterministic, varied weights.
        let params = (0..n).map(|i| ((i * 7919 % 101) as f32 / 101.0 - 0.45) * 0.6).collect();
        Cnn { shape, params }
    }

    #[test]
    fn weights_round_trip() {
        let cnn = small();
        let back = Cnn::from_bytes(&cnn.to_bytes()).unwrap();
        assert_eq!(back.params, cnn.params);
        assert_eq!(back.shape, cnn.shape);
        assert!(Cnn::from_bytes(b"MRTDCNN1short").is_err());
        // A weight file says which kind of network it holds.
        assert!(matches!(
            super::super::Network::from_bytes(&cnn.to_bytes()),
            Ok(super::super::Network::Cnn(_))
        ));
    }

    #[test]
    fn the_gradient_is_the_loss_slope() {
        let cnn = small();
        let input: [f32; CELL_LEN] =
            std::array::from_fn(|i| ((i * 31 % 17) as f32 / 17.0 - 0.5) * 2.0);
        let label = 3;
        let loss = |cnn: &Cnn| -cnn.probabilities(&input)[label].ln();
        let mut scratch = Scratch::new(cnn.shape);
        let mut logits = [0.0; N_CLASSES];
        cnn.forward(&input, &mut scratch, &mut logits);
        softmax(&mut logits);
        logits[label] -= 1.0;
        let mut grad = vec![0.0; cnn.params.len()];
        cnn.backward(&scratch, &logits, &mut grad);
        // Every block, by central differences.
        let offsets = cnn.shape.offsets();
        for block in 0..8 {
            for i in [offsets[block], (offsets[block] + offsets[block + 1]) / 2] {
                let eps = 1e-2;
                let mut plus = cnn.clone();
                plus.params[i] += eps;
                let mut minus = cnn.clone();
                minus.params[i] -= eps;
                let numeric = (loss(&plus) - loss(&minus)) / (2.0 * eps);
                assert!(
                    (numeric - grad[i]).abs() <= 2e-2 * (1.0 + numeric.abs()),
                    "block {block} parameter {i}: {numeric} against {}",
                    grad[i]
                );
            }
        }
    }
}
