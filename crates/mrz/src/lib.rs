//! mrtd-mrz.
