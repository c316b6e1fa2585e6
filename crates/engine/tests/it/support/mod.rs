//! What the specimen tests share: where the specimens are and their ground truth.

use std::path::PathBuf;

/// `tests/data/images` at the workspace root.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/images")
}

/// The manifest's (file, ground truth) pairs, lines joined by `|`.
pub fn manifest() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(data_dir().join("MANIFEST.tsv")).expect("the specimen manifest");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let file_idx = header.iter().position(|h| *h == "file").expect("a file column");
    let truth_idx = header.iter().position(|h| *h == "ground_truth_mrz").expect("a truth column");
    lines
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            (cells[file_idx].to_owned(), cells[truth_idx].to_owned())
        })
        .collect()
}
