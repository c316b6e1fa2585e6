//! Small binary payloads the fixture returns, already Base64-encoded.

/// A 1×1 RGBA PNG.
pub const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGOQz9/yHwAENQJCfUyX2wAAAABJRU5ErkJggg==";

/// A WAV file holding eight silent 8-bit mono samples at 8 kHz.
pub const WAV_SILENCE: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
