//! The integration tests of `mrtd-chip`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd-chip --test it -- <module>::` runs one of them.

mod pki;

mod active_authentication;
mod curves;
mod mutations;
mod openssl_fixtures;
mod passive_authentication;
