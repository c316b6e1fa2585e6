//! The integration tests of `mrtd-mrz`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd-mrz --test it -- <module>::` runs one of them.

mod common;

mod confidence;
mod correction;
mod golden;
mod properties;
mod tolerance;
mod vectors;
