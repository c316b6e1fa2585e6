//! Reads freshly generated synthetic photos of every format and scores them.
//!
//! Needs the OCR-B font of Debian's `fonts-ocr-b` package. 500 photos and 100
//! with handheld faults, made at run time from fixed seeds and read on every
//! core.

use std::sync::{Mutex, mpsc};

use mrtd_engine::{Engine, EngineBuilder, ParseOptions, Status};
use mrtd_synth::{
    DEBIAN_OCRB_PATH, OcrFont, Rng, SceneOptions, SynthDocument, SynthFormat, generate,
};

fn font() -> OcrFont {
    let bytes = std::fs::read(DEBIAN_OCRB_PATH)
        .unwrap_or_else(|error| panic!("install fonts-ocr-b ({DEBIAN_OCRB_PATH}): {error}"));
    OcrFont::from_bytes(bytes).expect("an OpenType font")
}

/// A generated photo's truth and what was read from it.
struct Outcome {
    idx: usize,
    format: SynthFormat,
    status: Status,
    valid: bool,
    got: String,
    truth: String,
}

/// Generates `count` photos from `seed` (the formats in turn) and reads each one. The
/// generator runs on this thread, in its fixed order, and the photos are read on every core.
fn read_generated(seed: u64, count: usize, options: &SceneOptions) -> Vec<Outcome> {
    let font = font();
    let engine = EngineBuilder::new().build();
    let readers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (send, receive) = mpsc::sync_channel(readers);
    let receive = Mutex::new(receive);
    let mut outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let readers: Vec<_> = (0..readers)
            .map(|_| {
                scope.spawn(|| {
                    let mut outcomes = Vec::new();
                    loop {
                        // The lock is released at the end of this statement, before the reading.
                        let next = receive.lock().expect("a reader panicked").recv();
                        let Ok((idx, format, document)) = next else { break };
                        outcomes.push(read(&engine, idx, format, &document));
                    }
                    outcomes
                })
            })
            .collect();
        let mut rng = Rng::new(seed);
        for idx in 0..count {
            let format = SynthFormat::ALL[idx % SynthFormat::ALL.len()];
            let document = generate(&mut rng, &font, format, options);
            send.send((idx, format, document)).expect("the readers are waiting");
        }
        drop(send);
        readers.into_iter().flat_map(|reader| reader.join().expect("a reader panicked")).collect()
    });
    outcomes.sort_by_key(|outcome| outcome.idx);
    outcomes
}

/// Reads one generated photo.
fn read(engine: &Engine, idx: usize, format: SynthFormat, document: &SynthDocument) -> Outcome {
    let reading = engine.read_gray(&document.image, &ParseOptions::default());
    let published = reading.reading.as_ref();
    Outcome {
        idx,
        format,
        status: reading.status,
        valid: published.is_some_and(|r| r.valid),
        got: published.map(|r| r.lines.join("|")).unwrap_or_default(),
        truth: document.lines.join("|"),
    }
}

/// The photos not read exactly; none of them may be reported as read.
fn misses(outcomes: &[Outcome]) -> Vec<&Outcome> {
    let misses: Vec<&Outcome> = outcomes.iter().filter(|o| o.got != o.truth).collect();
    for miss in &misses {
        assert!(
            miss.status != Status::Read,
            "photo {}: read {} but the truth is {}",
            miss.idx,
            miss.got,
            miss.truth
        );
    }
    misses
}

#[test]
fn synthetic_photos_are_read_exactly() {
    let count = 500;
    let outcomes = read_generated(20_260_101, count, &SceneOptions::default());
    let misses = misses(&outcomes);
    // Nor may a wrong reading pass every check digit (valid but wrong).
    for miss in &misses {
        assert!(
            !miss.valid,
            "photo {}: {} passes every check digit but the truth is {}",
            miss.idx, miss.got, miss.truth
        );
    }
    let exact = count - misses.len();
    eprintln!("{exact}/{count} exact");
    // The goal: at least 99 % of a fresh set of 500 read exactly.
    let failures: Vec<String> = misses
        .iter()
        .map(|m| format!("{} {:?}: {:?} {}", m.idx, m.format, m.status, m.got))
        .collect();
    assert!(exact * 100 >= count * 99, "{exact}/{count} exact; failures:\n{}", failures.join("\n"));
}

#[test]
fn photos_with_handheld_faults_are_never_read_wrongly() {
    // Security print, shadows, motion blur and pen strokes, which the classifier was not
    // trained on: misses are allowed, a wrong reading reported as read is not.
    let count = 100;
    let options = SceneOptions { more_faults: true, ..SceneOptions::default() };
    let outcomes = read_generated(20_261_201, count, &options);
    let exact = count - misses(&outcomes).len();
    eprintln!("{exact}/{count} exact with handheld faults");
    // At least 95 before pen strokes were drawn through some of the zones; 89 since.
    assert!(exact >= 87, "{exact}/{count} exact");
}

#[test]
fn photos_without_an_mrz_never_yield_one() {
    let font = font();
    let engine = EngineBuilder::new().build();
    let mut rng = Rng::new(77);
    let options = SceneOptions { with_mrz: false, ..SceneOptions::default() };
    for idx in 0..20 {
        let document = generate(&mut rng, &font, SynthFormat::ALL[idx % 5], &options);
        let reading = engine.read_gray(&document.image, &ParseOptions::default());
        assert_eq!(
            reading.status,
            Status::NoMrz,
            "photo {idx}: {:?}",
            reading.reading.map(|r| r.lines)
        );
    }
}

/// The share `mrtd-cells` printed for the set named `name` (a percentage).
fn printed_share(output: &str, name: &str) -> f64 {
    let line = output.lines().find(|line| line.starts_with(name)).unwrap_or_else(|| {
        panic!("no line for {name} in:\n{output}");
    });
    let open = line.find('(').expect("a share in brackets");
    let close = line.find(" %)").expect("a percentage");
    line[open + 1..close].parse().expect("a number")
}

#[test]
fn the_classifier_alone_reads_real_and_synthetic_cells() {
    // The reader's embedded classifier on the repository's photos, cut where the reader finds
    // their zone, and on fresh synthetic scenes: 99.60 % and 99.65 % (200 scenes) with
    // one network, 99.60 % and 99.73 % with the mean of two, 99.60 % and 99.61 % (scenes with
    // the softer focus the first network now trains on) once it was trained so.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let images = root.join("tests/data/images");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mrtd-cells"))
        .arg("--set")
        .arg(format!("{}:{}", images.join("MANIFEST.tsv").display(), images.display()))
        .args(["--scenes", "40"])
        .output()
        .expect("mrtd-cells runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("12 of 12 zones found in the truth's shape"), "{stdout}");
    assert!(printed_share(&stdout, &images.join("MANIFEST.tsv").display().to_string()) >= 99.5);
    assert!(printed_share(&stdout, "synthetic held-out") >= 99.0, "{stdout}");
    assert!(stdout.contains("confusions (truth→read)"), "{stdout}");
    // A model file that is no classifier is refused with its name.
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_mrtd-cells"))
        .arg("--model")
        .arg(images.join("MANIFEST.tsv"))
        .output()
        .expect("mrtd-cells runs");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is no classifier"));
}
