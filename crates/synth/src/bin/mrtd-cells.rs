//! Measures the cell classifier alone, cell by cell, on real photos and on synthetic
//! held-out ones, so that a change that helps synthetic cells and hurts real ones shows.
//!
//! Usage: `mrtd-cells [--model PATH]... [--set MANIFEST:DIR]... [--scenes N] [--seed N]
//! [--font PATH]`. Without `--model` it measures the reader's embedded classifier; with one
//! or more, the mean of the networks in those files (perceptrons or convolutional networks,
//! as `mrtd-train` writes them). For each real photo of a set (a manifest in the layout of
//! `tests/data/images/MANIFEST.tsv`), the reader locates the zone; where it finds one of the
//! truth's shape (lines and width), every cell is cut at the position the reader found and
//! classified, and its likeliest symbol compared with the truth. The synthetic
//! figure classifies the cells of freshly rendered scenes (the training's degradations, the
//! MRZ in stroke weights from thin to bold, which the training leaves out, other seeds) at
//! their exact positions. Both sample cells as the reader does (`Margins::Repaint`). Each set prints its accuracy and the most frequent
//! confusions, truth first.

#[path = "common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{load_font, number, parse_flags, training_options, usage_error};
use mrtd_engine::cells::{CELL_LEN, CellGeometry, Margins, sample_cell};
use mrtd_engine::gray::Gray;
use mrtd_engine::model::{ALPHABET, Classifier, Network};
use mrtd_engine::{EngineBuilder, ParseOptions};
use mrtd_synth::{DEBIAN_OCRB_PATH, Rng, SceneOptions, SynthFormat, generate};

const TOOL: &str = "mrtd-cells";
const USAGE: &str = "usage: mrtd-cells [--model PATH]... [--set MANIFEST:DIR]... [--scenes N] \
                     [--seed N] [--font PATH]";

/// How many confusions each set lists.
const SHOWN_CONFUSIONS: usize = 12;

struct Args {
    models: Vec<PathBuf>,
    sets: Vec<(PathBuf, PathBuf)>,
    scenes: usize,
    seed: u64,
    font: PathBuf,
}

fn parse_args() -> Args {
    let mut args = Args {
        models: Vec::new(),
        sets: Vec::new(),
        scenes: 200,
        seed: 20_261_204,
        font: PathBuf::from(DEBIAN_OCRB_PATH),
    };
    parse_flags(
        TOOL,
        USAGE,
        |_| false,
        |flag, value| {
            match flag {
                "--model" => args.models.push(PathBuf::from(value)),
                "--set" => {
                    let (manifest, dir) = value
                        .split_once(':')
                        .ok_or_else(|| format!("--set takes MANIFEST:DIR, not {value:?}"))?;
                    args.sets.push((PathBuf::from(manifest), PathBuf::from(dir)));
                }
                "--scenes" => args.scenes = number(flag, value)?,
                "--seed" => args.seed = number(flag, value)?,
                "--font" => args.font = PathBuf::from(value),
                other => return Err(format!("unknown flag {other}")),
            }
            Ok(())
        },
    );
    args
}

/// Per-cell counts of one set.
#[derive(Default)]
struct Tally {
    cells: usize,
    right: usize,
    confusions: BTreeMap<(char, char), usize>,
}

impl Tally {
    fn add(&mut self, truth: char, read: char) {
        self.cells += 1;
        if truth == read {
            self.right += 1;
        } else {
            *self.confusions.entry((truth, read)).or_default() += 1;
        }
    }

    fn print(&self, name: &str, note: &str) {
        let share = if self.cells == 0 { 0.0 } else { self.right as f64 / self.cells as f64 };
        println!(
            "{name}: {} of {} cells right ({:.2} %){note}",
            self.right,
            self.cells,
            share * 100.0
        );
        let mut confusions: Vec<(&(char, char), &usize)> = self.confusions.iter().collect();
        confusions.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = confusions
            .iter()
            .take(SHOWN_CONFUSIONS)
            .map(|((truth, read), n)| format!("{truth}→{read} {n}"))
            .collect();
        if !shown.is_empty() {
            println!("  confusions (truth→read): {}", shown.join(", "));
        }
    }
}

/// The classifier's likeliest symbol for a cell of `image`.
fn classify(model: &Classifier, image: &Gray, cell: &CellGeometry, margins: Margins) -> char {
    let mut input = [0.0f32; CELL_LEN];
    sample_cell(image, cell, margins, &mut input);
    let p = model.probabilities(&input);
    let best = p.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(i, _)| i);
    char::from(ALPHABET[best])
}

/// A photo decoded to gray, turned upright as its EXIF orientation says.
fn load_gray(path: &Path) -> Result<Gray, String> {
    use image::ImageDecoder;
    let reader = image::ImageReader::open(path)
        .and_then(|reader| reader.with_guessed_format())
        .map_err(|e| e.to_string())?;
    let mut decoder = reader.into_decoder().map_err(|e| e.to_string())?;
    let orientation = decoder.orientation().map_err(|e| e.to_string())?;
    let mut image = image::DynamicImage::from_decoder(decoder).map_err(|e| e.to_string())?;
    image.apply_orientation(orientation);
    let luma = image.to_luma8();
    let (width, height) = (luma.width() as usize, luma.height() as usize);
    Ok(Gray { width, height, data: luma.into_raw() })
}

/// The manifest's photos with an MRZ: file name and truth lines.
fn manifest(path: &Path) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        usage_error(TOOL, USAGE, &format!("cannot read {}: {e}", path.display()))
    });
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| header.iter().position(|h| *h == name);
    let (Some(file), Some(truth)) = (column("file"), column("ground_truth_mrz")) else {
        usage_error(TOOL, USAGE, "the manifest needs `file` and `ground_truth_mrz` columns")
    };
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let truth = fields.get(truth).filter(|t| !t.is_empty())?;
            Some((fields.get(file)?.to_string(), truth.split('|').map(str::to_owned).collect()))
        })
        .collect()
}

/// The real photos of one set, cut where the reader found their zone.
fn measure_real(model: &Classifier, manifest_path: &Path, dir: &Path) -> (Tally, usize, usize) {
    let engine = EngineBuilder::new().build();
    let options = ParseOptions::default();
    let mut tally = Tally::default();
    let (mut photos, mut found) = (0, 0);
    for (file, truth) in manifest(manifest_path) {
        photos += 1;
        let gray = match load_gray(&dir.join(&file)) {
            Ok(gray) => gray,
            Err(e) => {
                eprintln!("{file}: not read ({e})");
                continue;
            }
        };
        let (_, cells) = engine.read_gray_with_cells(&gray, &options);
        let shaped = cells.filter(|cells| {
            cells.len() == truth.len()
                && cells.iter().zip(&truth).all(|(row, line)| row.len() == line.len())
        });
        let Some(cells) = shaped else {
            eprintln!("{file}: no zone of the truth's shape found");
            continue;
        };
        found += 1;
        for (row, line) in cells.iter().zip(&truth) {
            for (cell, truth) in row.iter().zip(line.chars()) {
                tally.add(truth, classify(model, &gray, cell, Margins::Repaint));
            }
        }
    }
    (tally, photos, found)
}

/// Freshly rendered scenes with the training's degradations, cut at their exact cells.
fn measure_synthetic(model: &Classifier, font: &Path, scenes: usize, seed: u64) -> Tally {
    let font = load_font(TOOL, font);
    // The training's scenes, with the MRZ in stroke weights the training leaves out.
    let options = SceneOptions { print_weights: true, ..training_options(false) };
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for idx in 0..scenes {
        let document =
            generate(&mut rng, &font, SynthFormat::ALL[idx % SynthFormat::ALL.len()], &options);
        for (line, cells) in document.lines.iter().zip(&document.cells) {
            for (truth, cell) in line.chars().zip(cells) {
                tally.add(truth, classify(model, &document.image, cell, Margins::Repaint));
            }
        }
    }
    tally
}

/// One network's weights from a file, or the usage error naming it.
fn load_network(path: &Path) -> Network {
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        usage_error(TOOL, USAGE, &format!("cannot read {}: {e}", path.display()))
    });
    Network::from_bytes(&bytes).unwrap_or_else(|e| {
        usage_error(TOOL, USAGE, &format!("{} is no classifier: {e}", path.display()))
    })
}

fn main() {
    let args = parse_args();
    let members: Vec<Network> = args.models.iter().map(|path| load_network(path)).collect();
    let model = Classifier::of(members).unwrap_or_else(Classifier::embedded);
    for (manifest_path, dir) in &args.sets {
        let (tally, photos, found) = measure_real(&model, manifest_path, dir);
        tally.print(
            &manifest_path.display().to_string(),
            &format!(", {found} of {photos} zones found in the truth's shape"),
        );
    }
    if args.scenes > 0 {
        let tally = measure_synthetic(&model, &args.font, args.scenes, args.seed);
        tally.print("synthetic held-out", &format!(", {} scenes, seed {}", args.scenes, args.seed));
    }
}
