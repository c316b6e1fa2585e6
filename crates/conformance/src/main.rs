//! The conformance fixture.
fn main() {}
