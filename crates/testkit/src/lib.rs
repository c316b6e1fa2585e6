//! What mrtd's test suites share (a dev-dependency only).
//!
//! [`http`] is the one HTTP/1.1 client of the tests. It is written over a plain
//! `TcpStream` on purpose: a client library normalises what the tests must see (header
//! case and order, chunking, an answer sent before the request body was read, a body that
//! is not what its `Content-Type` says), and the tests check the server's bytes.

pub mod http;
