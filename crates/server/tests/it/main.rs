//! The integration tests of `mrtd-server`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd-server --test it -- <module>::` runs one of them.

mod auth_common;
#[cfg(feature = "otel")]
mod support;

mod auth_api_key;
mod auth_oauth;
mod connections;
mod endpoint_bodies;
mod observe;
mod otel;
