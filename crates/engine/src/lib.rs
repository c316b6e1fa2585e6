//! mrtd-engine.
