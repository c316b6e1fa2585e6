//! The `mrtd` command.
fn main() {}
