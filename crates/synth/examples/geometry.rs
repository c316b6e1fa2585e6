//! Compares the cells the reader lays over synthetic photos with the true cells.
//!
//! Usage: `cargo run --release --example geometry -- [COUNT] [SEED]`.

use mrtd_synth::{DEBIAN_OCRB_PATH, OcrFont, Rng, SceneOptions, SynthFormat, generate};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(50);
    let seed: u64 = args.get(2).and_then(|v| v.parse().ok()).unwrap_or(5);
    let font = OcrFont::from_bytes(std::fs::read(DEBIAN_OCRB_PATH).expect("font")).expect("font");
    let engine = mrtd_engine::EngineBuilder::new().build();
    let mut rng = Rng::new(seed);
    let options = SceneOptions::default();
    let mut exact = 0;
    for idx in 0..count {
        let format = SynthFormat::ALL[idx % 5];
        let doc = generate(&mut rng, &font, format, &options);
        let (reading, cells) =
            engine.read_gray_with_cells(&doc.image, &mrtd_engine::ParseOptions::default());
        let got = reading.reading.as_ref().map(|r| r.lines.join("|")).unwrap_or_default();
        let ok = got == doc.lines.join("|") && reading.status == mrtd_engine::Status::Read;
        exact += usize::from(ok);
        let truth = &doc.cells;
        let pitch = truth[0][0].along.0.hypot(truth[0][0].along.1);
        let angle = truth[0][0].along.1.atan2(truth[0][0].along.0).to_degrees();
        let detail = match &cells {
            Some(cells) => {
                let err = |a: (f32, f32), b: (f32, f32)| (a.0 - b.0).hypot(a.1 - b.1) / pitch;
                let n_got = cells[0].len();
                let len = |v: (f32, f32)| v.0.hypot(v.1);
                let mut errs = format!(
                    "height ratio {:.3} pitch ratio {:.3}",
                    len(cells[0][5].across) / len(truth[0][5].across),
                    len(cells[0][5].along) / len(truth[0][5].along)
                );
                if n_got == truth[0].len() && cells.len() == truth.len() {
                    for (line, truth_line) in cells.iter().zip(truth) {
                        let e: Vec<String> = line
                            .iter()
                            .zip(truth_line)
                            .step_by(4)
                            .map(|(a, b)| format!("{:.1}", err(a.centre, b.centre)))
                            .collect();
                        errs.push_str(&format!(" [{}]", e.join(" ")));
                    }
                }
                format!(
                    "{errs} lines {} x {} first {:.2} last {:.2}",
                    cells.len(),
                    n_got,
                    err(cells[0][0].centre, truth[0][0].centre),
                    err(cells[0][n_got - 1].centre, truth[0][truth[0].len() - 1].centre)
                )
            }
            None => "none".to_owned(),
        };
        println!(
            "{} {idx} {:?} {} pitch {pitch:.1} angle {angle:.0} size {}x{} {:?} {detail}",
            if ok { "OK " } else { "BAD" },
            format,
            doc.lines[0].len(),
            doc.image.width,
            doc.image.height,
            reading.status
        );
        if !ok {
            println!(
                "   got  {got}\n   want {}\n   {:?}",
                doc.lines.join("|"),
                reading.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
        }
    }
    println!("{exact}/{count}");
}

fn _unused() {}
