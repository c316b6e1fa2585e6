//! mrtd-store.
