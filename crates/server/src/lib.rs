//! mrtd-server.
