//! Finds the JSON-RPC `method` of a request body while the body streams past.
//!
//! The metrics layer sits outside the authentication guard, which must be the first to
//! read a request, so it cannot buffer and parse the body itself. Instead it watches the
//! bytes the inner layers read and runs this small scanner over them: it follows the
//! top-level object just far enough to find the `method` member, never builds a tree and
//! stops as soon as the answer is known. The result is always one of a fixed set of labels,
//! so a hostile client cannot create new metric series.

/// MCP methods that get a label of their own; anything else is `other`.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// Label of a body that is a JSON-RPC batch (an array).
pub const BATCH: &str = "batch";
/// Label of a body with a `method` that is not a known MCP method (or is escaped).
pub const OTHER: &str = "other";
/// Label of a body without a string `method` at the top level, or not an object at all.
pub const INVALID: &str = "invalid";
/// Label of a request whose body nobody read (it was refused before that).
pub const UNREAD: &str = "unread";

/// Longest key or method name worth capturing; longer ones cannot be known labels.
const CAPTURE_LIMIT: usize = 40;

/// The metric label for a method name: itself when known, else [`OTHER`].
pub fn method_label(method: &str) -> &'static str {
    KNOWN_METHODS.iter().find(|known| **known == method).copied().unwrap_or(OTHER)
}

/// An incremental scanner for the top-level `method` of a JSON-RPC message.
///
/// Feed it the body in any number of chunks with [`feed`](Self::feed), then ask for the
/// [`label`](Self::label). It agrees with a full JSON parser on every well-formed object
/// whose `method` is written without escapes; on malformed input it gives some label and
/// never panics.
#[derive(Debug, Default, Clone)]
pub struct MethodSniffer {
    /// Whether any byte has been seen.
    started: bool,
    /// The final label, once known.
    done: Option<&'static str>,
    /// Nesting depth: 1 inside the top-level object.
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1: whether the next string is a member name.
    expect_key: bool,
    /// Whether the string being read is captured (a depth-1 key, or the method value).
    capturing: bool,
    /// Whether the captured string had an escape or ran past the limit.
    capture_spoiled: bool,
    capture: Vec<u8>,
    /// Whether the string being captured is the `method` value (not a key).
    capturing_value: bool,
    /// The last depth-1 key read was `method`, and its value comes next.
    method_next: bool,
}

impl MethodSniffer {
    /// A scanner that has seen nothing yet.
    pub fn new() -> Self {
        MethodSniffer::default()
    }

    /// Whether the label is settled, so further bytes need not be fed.
    pub fn is_done(&self) -> bool {
        self.done.is_some()
    }

    /// The label for what has been seen: a known method, [`OTHER`], [`BATCH`], [`INVALID`]
    /// or, when nothing was fed, [`UNREAD`].
    pub fn label(&self) -> &'static str {
        match (self.done, self.started) {
            (Some(label), _) => label,
            (None, true) => INVALID,
            (None, false) => UNREAD,
        }
    }

    /// Scans the next chunk of the body.
    pub fn feed(&mut self, chunk: &[u8]) {
        for &byte in chunk {
            if self.done.is_some() {
                return;
            }
            self.step(byte);
        }
    }

    fn step(&mut self, byte: u8) {
        if !self.started {
            if byte.is_ascii_whitespace() {
                return;
            }
            self.started = true;
            match byte {
                b'{' => {
                    self.depth = 1;
                    self.expect_key = true;
                }
                b'[' => self.done = Some(BATCH),
                _ => self.done = Some(INVALID),
            }
            return;
        }
        if self.in_string {
            self.string_byte(byte);
            return;
        }
        match byte {
            b'"' => {
                self.in_string = true;
                self.escaped = false;
                let key = self.depth == 1 && self.expect_key;
                let value = self.depth == 1 && !self.expect_key && self.method_next;
                self.capturing = key || value;
                self.capturing_value = value;
                self.capture_spoiled = false;
                self.capture.clear();
            }
            b'{' | b'[' => {
                self.depth = self.depth.saturating_add(1);
                self.leave_method_value();
            }
            b'}' | b']' => {
                if self.depth <= 1 {
                    // The top-level object closed without a usable method.
                    self.done = Some(INVALID);
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 => self.expect_key = false,
            b',' if self.depth == 1 => {
                self.expect_key = true;
                self.method_next = false;
            }
            _ if byte.is_ascii_whitespace() => {}
            _ => self.leave_method_value(),
        }
    }

    /// A value other than a string where the method should be: the method is not a string.
    fn leave_method_value(&mut self) {
        if self.depth >= 1 && self.method_next && !self.expect_key {
            self.done = Some(INVALID);
        }
    }

    fn string_byte(&mut self, byte: u8) {
        if self.escaped {
            self.escaped = false;
            return;
        }
        match byte {
            b'\\' => {
                self.escaped = true;
                self.capture_spoiled = true;
            }
            b'"' => {
                self.in_string = false;
                if self.capturing {
                    self.end_capture();
                }
            }
            _ if self.capturing => {
                if self.capture.len() < CAPTURE_LIMIT {
                    self.capture.push(byte);
                } else {
                    self.capture_spoiled = true;
                }
            }
            _ => {}
        }
    }

    fn end_capture(&mut self) {
        self.capturing = false;
        if self.capturing_value {
            let label = if self.capture_spoiled {
                OTHER
            } else {
                std::str::from_utf8(&self.capture).map_or(OTHER, method_label)
            };
            self.done = Some(label);
        } else {
            // A member name escaped in any way is taken as not `method`; a full parser
            // would decode it, so such bodies are simply labelled `invalid` or `other`.
            self.method_next = !self.capture_spoiled && self.capture == b"method";
        }
    }
}

/// The label of a whole body at once.
pub fn sniff_method(body: &[u8]) -> &'static str {
    let mut sniffer = MethodSniffer::new();
    sniffer.feed(body);
    sniffer.label()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_method_wherever_it_is() {
        assert_eq!(
            sniff_method(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            "tools/list"
        );
        let late = br#"{"params":{"method":"ping","x":[1,{"method":"y"}]},"id":"a","method":"tools/call"}"#;
        assert_eq!(sniff_method(late), "tools/call");
        assert_eq!(sniff_method(b"  \n{ \"method\" : \"initialize\" }"), "initialize");
    }

    #[test]
    fn strings_that_look_like_keys_do_not_confuse_it() {
        let tricky = br#"{"a":"\"method\":\"ping","b":"}","method":"prompts/get"}"#;
        assert_eq!(sniff_method(tricky), "prompts/get");
        let value_named_method = br#"{"a":"method","b":"tools/list"}"#;
        assert_eq!(sniff_method(value_named_method), INVALID);
    }

    #[test]
    fn labels_are_bounded() {
        assert_eq!(sniff_method(br#"{"method":"evil/one"}"#), OTHER);
        assert_eq!(sniff_method(br#"{"method":"tools\/list"}"#), OTHER);
        let long = format!(r#"{{"method":"{}"}}"#, "x".repeat(10_000));
        assert_eq!(sniff_method(long.as_bytes()), OTHER);
        assert_eq!(sniff_method(br#"{"method":7}"#), INVALID);
        assert_eq!(sniff_method(br#"{"method":{"a":1}}"#), INVALID);
        assert_eq!(sniff_method(br#"{"id":1}"#), INVALID);
        assert_eq!(sniff_method(b"[{\"method\":\"ping\"}]"), BATCH);
        assert_eq!(sniff_method(b"not json"), INVALID);
        assert_eq!(sniff_method(b""), UNREAD);
    }

    #[test]
    fn chunks_split_anywhere_give_the_same_label() {
        let body = br#"{"id":1,"params":{"name":"read_photo"},"method":"tools/call"}"#;
        for split in 0..body.len() {
            let mut sniffer = MethodSniffer::new();
            sniffer.feed(&body[..split]);
            sniffer.feed(&body[split..]);
            assert_eq!(sniffer.label(), "tools/call", "split at {split}");
        }
    }
}
