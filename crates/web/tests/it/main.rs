//! The integration tests of `mrtd-web`, linked as one binary rather than one per file (each
//! link takes seconds): every module here was a test file of its own, and
//! `cargo test -p mrtd-web --test it -- <module>::` runs one of them.

mod support;

mod auth;
mod pages;
mod portrait;
mod rest;
mod store_down;
mod visual_zone;
