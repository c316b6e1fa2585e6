//! The integration tests of `mrtd`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd --test it -- <module>::` runs one of them.

mod support;

mod auth_cli;
mod bad_input;
mod callers;
mod check;
mod chip;
mod config;
mod formats;
mod hardening;
mod image_url;
mod kept_portrait;
mod limits;
mod mcp_tools;
mod observability;
mod one_result;
mod otel;
mod parse;
mod probes;
mod robustness;
mod scan;
mod shutdown;
mod sides;
mod stdio_protocol;
mod visual_zone;
mod web;
