//! The per-cell character classifier: a small multilayer perceptron.
//!
//! The network is tiny (one hidden layer) because MRZ characters are a single
//! fixed-pitch font: once the cell is cut out well, telling 37 glyphs apart is
//! easy, and a few hundred thousand multiply-adds per cell keep reading fast on
//! one core. The weights live in a small binary file embedded in the library.

use crate::cells::CELL_LEN;

/// The 37 symbols of the MRZ alphabet, in classifier output order.
pub const ALPHABET: &[u8; 37] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<";
/// Number of classes.
pub const N_CLASSES: usize = 37;
/// Width of the hidden layer of a freshly trained network.
pub const N_HIDDEN: usize = 256;

const MAGIC: &[u8; 8] = b"MRTDMLP1";

/// Returns the class index of an MRZ symbol.
pub fn class_of(symbol: u8) -> Option<usize> {
    ALPHABET.iter().position(|&c| c == symbol)
}

/// Why a weight file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The file does not start with the expected header or has the wrong size.
    #[error("not a classifier weight file of the expected shape")]
    BadFormat,
}

/// Network weights: `hidden = relu(w1 x + b1)`, `logits = w2 hidden + b2`.
#[derive(Clone, Debug)]
pub struct Mlp {
    /// Hidden layer width.
    pub n_hidden: usize,
    /// Input to hidden weights, one row of `CELL_LEN` per hidden unit.
    pub w1: Vec<f32>,
    /// Hidden biases.
    pub b1: Vec<f32>,
    /// Hidden to output weights, one row of `n_hidden` per class.
    pub w2: Vec<f32>,
    /// Output biases.
    pub b2: Vec<f32>,
}

impl Mlp {
    /// Reads a weight file written by [`Mlp::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Mlp, ModelError> {
        if bytes.len() < 20 || &bytes[..8] != MAGIC {
            return Err(ModelError::BadFormat);
        }
        let read_u32 = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let n_in = read_u32(8) as usize;
        let n_hidden = read_u32(12) as usize;
        let n_out = read_u32(16) as usize;
        if n_in != CELL_LEN || n_out != N_CLASSES || n_hidden == 0 || n_hidden > 4096 {
            return Err(ModelError::BadFormat);
        }
        let n_floats = n_hidden * n_in + n_hidden + n_out * n_hidden + n_out;
        if bytes.len() != 20 + n_floats * 4 {
            return Err(ModelError::BadFormat);
        }
        let mut floats = bytes[20..]
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]));
        let mut take = |n: usize| floats.by_ref().take(n).collect::<Vec<f32>>();
        let w1 = take(n_hidden * n_in);
        let b1 = take(n_hidden);
        let w2 = take(n_out * n_hidden);
        let b2 = take(n_out);
        Ok(Mlp { n_hidden, w1, b1, w2, b2 })
    }

    /// Serialises the weights as little-endian `f32` after a short header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(20 + 4 * (self.w1.len() + self.w2.len() + 512));
        bytes.extend_from_slice(MAGIC);
        for dim in [CELL_LEN, self.n_hidden, N_CLASSES] {
            bytes.extend_from_slice(&(dim as u32).to_le_bytes());
        }
        for value in self.w1.iter().chain(&self.b1).chain(&self.w2).chain(&self.b2) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }

    /// Computes the hidden activations and the class logits for one cell.
    pub fn forward(
        &self,
        input: &[f32; CELL_LEN],
        hidden: &mut [f32],
        logits: &mut [f32; N_CLASSES],
    ) {
        for (unit, h) in hidden.iter_mut().enumerate() {
            let row = &self.w1[unit * CELL_LEN..(unit + 1) * CELL_LEN];
            *h = (dot(row, input) + self.b1[unit]).max(0.0);
        }
        for (class, logit) in logits.iter_mut().enumerate() {
            let row = &self.w2[class * self.n_hidden..(class + 1) * self.n_hidden];
            *logit = dot(row, hidden) + self.b2[class];
        }
    }

    /// Returns class probabilities for one cell.
    pub fn probabilities(&self, input: &[f32; CELL_LEN]) -> [f32; N_CLASSES] {
        let mut hidden = vec![0.0; self.n_hidden];
        let mut logits = [0.0; N_CLASSES];
        self.forward(input, &mut hidden, &mut logits);
        softmax(&mut logits);
        logits
    }
}

/// Turns logits into probabilities in place.
pub fn softmax(values: &mut [f32; N_CLASSES]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for value in values.iter_mut() {
        *value = (*value - max).exp();
        sum += *value;
    }
    for value in values.iter_mut() {
        *value /= sum;
    }
}

/// A dot product written with eight independent accumulators so that the
/// compiler can vectorise it without fast-math. The eight lanes are written out rather
/// than looped over: the same code once optimised, and under the fuzzer's instrumentation
/// (which traces every comparison, a loop's included, and keeps the loop) several times
/// faster, so that fuzzing spends its time on the inputs rather than on this.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (chunks_a, tail_a) = a.as_chunks::<8>();
    let (chunks_b, tail_b) = b.as_chunks::<8>();
    let tail: f32 = tail_a.iter().zip(tail_b).map(|(x, y)| x * y).sum();
    for (x, y) in chunks_a.iter().zip(chunks_b) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
        acc[4] += x[4] * y[4];
        acc[5] += x[5] * y[5];
        acc[6] += x[6] * y[6];
        acc[7] += x[7] * y[7];
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_round_trip() {
        let n_hidden = 8;
        let value = |i: usize| (i % 17) as f32 * 0.125 - 1.0;
        let mlp = Mlp {
            n_hidden,
            w1: (0..n_hidden * CELL_LEN).map(value).collect(),
            b1: (0..n_hidden).map(value).collect(),
            w2: (0..N_CLASSES * n_hidden).map(value).collect(),
            b2: (0..N_CLASSES).map(value).collect(),
        };
        let back = Mlp::from_bytes(&mlp.to_bytes()).unwrap();
        assert_eq!(back.w1, mlp.w1);
        assert_eq!(back.b2, mlp.b2);
        assert!(Mlp::from_bytes(b"MRTDMLP1short").is_err());
    }

    #[test]
    fn dot_sums_every_product_the_lanes_and_the_tail() {
        for n in [0, 1, 7, 8, 9, 16, 19, CELL_LEN] {
            let a: Vec<f32> = (0..n).map(|i| (i % 5) as f32 - 2.0).collect();
            let b: Vec<f32> = (0..n).map(|i| (i % 3) as f32 * 0.5).collect();
            let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(dot(&a, &b), naive, "length {n}");
        }
    }

    #[test]
    fn alphabet_has_every_symbol_once() {
        assert_eq!(class_of(b'<'), Some(36));
        assert_eq!(class_of(b'A'), Some(10));
        assert_eq!(class_of(b'a'), None);
    }
}
