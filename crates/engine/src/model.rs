//! The per-cell character classifier: the mean of two small multilayer perceptrons.
//!
//! Each network is tiny (one hidden layer) because MRZ characters are a single
//! fixed-pitch font: once the cell is cut out well, telling 37 glyphs apart is
//! easy, and a few hundred thousand multiply-adds per cell keep reading fast on
//! one core. The weights live in small binary files embedded in the library. A small
//! convolutional network ([`Cnn`]) can be trained (`mrtd-train --cnn`) and measured in a
//! mean (`mrtd-cells --model`); it is not embedded (the engine README says why).

use crate::cells::CELL_LEN;

pub mod cnn;

pub use cnn::{Cnn, CnnShape};

/// The 37 symbols of the MRZ alphabet, in classifier output order.
pub const ALPHABET: &[u8; 37] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<";
/// Number of classes.
pub const N_CLASSES: usize = 37;
/// Width of the hidden layer of a freshly trained network.
pub const N_HIDDEN: usize = 256;

const MAGIC: &[u8; 8] = b"MRTDMLP1";

/// The embedded networks, each trained by `scripts/train-model.sh` on synthetic photos: on
/// the training's scenes as they are, and with the handheld faults (security print, shadows,
/// motion blur, pen strokes) as well. Each alone reads some altered real photos the other
/// misreads; their mean reads more than either (the engine README).
static EMBEDDED: [&[u8]; 2] =
    [include_bytes!("../model/mrz-cells.bin"), include_bytes!("../model/mrz-cells-faults.bin")];

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
        let [n_in, n_hidden, n_out] = read_header(bytes, MAGIC).ok_or(ModelError::BadFormat)?;
        if n_in != CELL_LEN || n_out != N_CLASSES || n_hidden == 0 || n_hidden > 4096 {
            return Err(ModelError::BadFormat);
        }
        let n_floats = n_hidden * n_in + n_hidden + n_out * n_hidden + n_out;
        let mut floats = read_floats(bytes, n_floats).ok_or(ModelError::BadFormat)?.into_iter();
        let mut take = |n: usize| floats.by_ref().take(n).collect::<Vec<f32>>();
        let w1 = take(n_hidden * n_in);
        let b1 = take(n_hidden);
        let w2 = take(n_out * n_hidden);
        let b2 = take(n_out);
        Ok(Mlp { n_hidden, w1, b1, w2, b2 })
    }

    /// Serialises the weights as little-endian `f32` after a short header.
    pub fn to_bytes(&self) -> Vec<u8> {
        let values = self.w1.iter().chain(&self.b1).chain(&self.w2).chain(&self.b2);
        write_weights(MAGIC, [CELL_LEN, self.n_hidden, N_CLASSES], values)
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

/// The bytes a weight file's header takes: an 8-byte magic, then three little-endian `u32`.
const HEADER_LEN: usize = 20;

/// A weight file's three dimensions, when it starts with `magic`.
fn read_header(bytes: &[u8], magic: &[u8; 8]) -> Option<[usize; 3]> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != magic {
        return None;
    }
    let read_u32 = |at: usize| {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
    };
    Some([read_u32(8), read_u32(12), read_u32(16)])
}

/// The little-endian `f32` values after a weight file's header, when there are exactly `n`.
fn read_floats(bytes: &[u8], n: usize) -> Option<Vec<f32>> {
    (bytes.len() == HEADER_LEN + n * 4).then(|| {
        bytes[HEADER_LEN..]
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
            .collect()
    })
}

/// A weight file: `magic`, the three dimensions, then the values as little-endian `f32`.
fn write_weights<'a>(
    magic: &[u8; 8],
    dims: [usize; 3],
    values: impl Iterator<Item = &'a f32>,
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + 4 * values.size_hint().0);
    bytes.extend_from_slice(magic);
    for dim in dims {
        bytes.extend_from_slice(&(dim as u32).to_le_bytes());
    }
    for value in values {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes
}

/// One network of a [`Classifier`].
#[derive(Clone, Debug)]
pub enum Network {
    /// A perceptron.
    Mlp(Mlp),
    /// A convolutional network.
    Cnn(Cnn),
}

impl Network {
    /// Reads a weight file of either kind.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, ModelError> {
        if bytes.starts_with(MAGIC) {
            Mlp::from_bytes(bytes).map(Network::Mlp)
        } else {
            Cnn::from_bytes(bytes).map(Network::Cnn)
        }
    }

    /// The network's class probabilities of one cell.
    fn probabilities(&self, input: &[f32; CELL_LEN], hidden: &mut [f32]) -> [f32; N_CLASSES] {
        let mut logits = [0.0; N_CLASSES];
        match self {
            Network::Mlp(mlp) => mlp.forward(input, &mut hidden[..mlp.n_hidden], &mut logits),
            Network::Cnn(cnn) => {
                let mut scratch = cnn::Scratch::new(cnn.shape);
                cnn.forward(input, &mut scratch, &mut logits);
            }
        }
        softmax(&mut logits);
        logits
    }
}

/// The cell classifier: one network, or several whose probabilities are averaged. Networks
/// trained on different renderings disagree where a cell is unlike their training, and the
/// mean then says so as doubt rather than taking one network's certainty.
#[derive(Clone, Debug)]
pub struct Classifier {
    members: Vec<Network>,
}

impl Classifier {
    /// A classifier of the given networks; `None` without one.
    pub fn of(members: Vec<Network>) -> Option<Classifier> {
        (!members.is_empty()).then_some(Classifier { members })
    }

    /// The classifier the reader uses: the mean of the embedded networks.
    pub fn embedded() -> Classifier {
        let members = EMBEDDED
            .iter()
            .map(|bytes| {
                Network::from_bytes(bytes).expect("the embedded classifier weights are well formed")
            })
            .collect();
        Classifier { members }
    }

    /// The hidden buffer [`Classifier::classify`] needs.
    pub fn hidden_len(&self) -> usize {
        self.members
            .iter()
            .map(|m| match m {
                Network::Mlp(mlp) => mlp.n_hidden,
                Network::Cnn(_) => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Returns the class probabilities of one cell.
    pub fn probabilities(&self, input: &[f32; CELL_LEN]) -> [f32; N_CLASSES] {
        let mut hidden = vec![0.0; self.hidden_len()];
        let mut out = [0.0; N_CLASSES];
        self.classify(input, &mut hidden, &mut out);
        out
    }

    /// Writes the class probabilities of one cell into `out`: the mean of the networks'.
    pub fn classify(
        &self,
        input: &[f32; CELL_LEN],
        hidden: &mut [f32],
        out: &mut [f32; N_CLASSES],
    ) {
        out.fill(0.0);
        for member in &self.members {
            let one = member.probabilities(input, hidden);
            for (sum, p) in out.iter_mut().zip(&one) {
                *sum += p;
            }
        }
        let n = self.members.len() as f32;
        for sum in out.iter_mut() {
            *sum /= n;
        }
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
    fn the_classifier_is_the_mean_of_its_networks() {
        // Two networks that each answer one class whatever the input: their mean is split.
        let sure_of = |class: usize| {
            let mut b2 = vec![0.0; N_CLASSES];
            b2[class] = 50.0;
            Mlp {
                n_hidden: 1,
                w1: vec![0.0; CELL_LEN],
                b1: vec![0.0],
                w2: vec![0.0; N_CLASSES],
                b2,
            }
        };
        let input = [0.5; CELL_LEN];
        let one = Classifier::of(vec![Network::Mlp(sure_of(0))]).unwrap().probabilities(&input);
        assert!(one[0] > 0.999);
        let both = Classifier::of(vec![Network::Mlp(sure_of(0)), Network::Mlp(sure_of(24))])
            .unwrap()
            .probabilities(&input);
        assert!((both[0] - 0.5).abs() < 1e-3 && (both[24] - 0.5).abs() < 1e-3, "{both:?}");
        assert!((both.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(Classifier::of(Vec::new()).is_none());
        // Every embedded network loads.
        assert_eq!(Classifier::embedded().members.len(), EMBEDDED.len());
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
