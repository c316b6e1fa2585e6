//! The integration tests of `mrtd-engine`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd-engine --test it -- <module>::` runs one of them.
//!
//! `tests/metadata_bomb.rs` is a binary of its own: it measures the process's peak memory.

mod support;

mod altered_specimens;
mod decode_errors;
mod exif;
mod heic;
mod outline;
mod specimens;
mod visual_zone;
