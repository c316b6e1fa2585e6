//! Reads every image of a manifest and prints one line per image, for tuning.
//!
//! Usage: `cargo run --release --example score -- MANIFEST.tsv IMAGE_DIR`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let manifest = std::fs::read_to_string(&args[1]).expect("a manifest");
    let dir = std::path::Path::new(&args[2]);
    let engine = mrtd_engine::EngineBuilder::new().build();
    let mut header: Vec<&str> = Vec::new();
    let (mut n, mut exact) = (0, 0);
    for (idx, line) in manifest.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if idx == 0 {
            header = cols;
            continue;
        }
        let get =
            |name: &str| header.iter().position(|h| *h == name).map(|i| cols[i]).unwrap_or("");
        let file = get("file");
        let truth = get("ground_truth_mrz");
        let bytes = std::fs::read(dir.join(file)).expect("an image");
        let reading =
            engine.read(&bytes, &mrtd_engine::ParseOptions::default()).expect("decodable");
        let text = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
        let ok = text == truth && (truth.is_empty() || reading.status == mrtd_engine::Status::Read);
        n += 1;
        exact += usize::from(ok);
        println!(
            "{} {:?} {:.0}ms rot {:.0} {file}\n   got {text}\n  want {truth}\n  {:?}",
            if ok { "OK " } else { "BAD" },
            reading.status,
            reading.timing_ms,
            reading.rotation_degrees,
            reading.diagnostics.iter().map(|d| format!("{:?}", d.code)).collect::<Vec<_>>()
        );
    }
    println!("{exact}/{n} exact");
}
