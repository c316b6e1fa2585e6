//! The integration tests of `mrtd-store`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd-store --test it -- <module>::` runs one of them.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
#[macro_use]
mod contract;

mod postgres;
mod sqlite;
