//! `mrtd-load`: drives an mrtd server with a bounded mix of MCP requests.

fn main() {
    eprintln!("mrtd-load: no scenario yet");
    std::process::exit(2);
}
