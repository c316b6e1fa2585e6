//! Prints the lines of text found in an image: `cargo run -p mrtd-text --example lines IMAGE`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: lines IMAGE")?;
    let image = image::open(path)?.to_rgb8();
    let reader = mrtd_text::TextReader::new()?;
    let started = std::time::Instant::now();
    let boxes = reader.detect(&image)?;
    eprintln!("{} boxes in {:?}", boxes.len(), started.elapsed());
    let started = std::time::Instant::now();
    for bbox in boxes {
        if let Some(line) = reader.recognise(&image, bbox)? {
            println!(
                "{:>4.0} {:>4.0} {:>4.0} {:>4.0}  {:.3}  {}",
                line.bbox[0], line.bbox[1], line.bbox[2], line.bbox[3], line.confidence, line.text
            );
        }
    }
    eprintln!("read in {:?}", started.elapsed());
    Ok(())
}
