//! The JSON-RPC method label of a request on the MCP endpoint, from a fixed list.
//!
//! The metrics layer sits outside the authentication guard, which must be the first to
//! read a request, so it cannot read the body itself. It puts an empty [`RpcMethodSlot`]
//! into the request's extensions instead; the guard, which reads and parses the body,
//! fills it, and the metrics layer reads it once the response is back. A label is always
//! one of a fixed set, so a hostile client cannot create new metric series.

use std::sync::{Arc, OnceLock};

/// MCP methods that get a label of their own; anything else is [`RpcMethod::OTHER`].
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

/// The metric label of a request's JSON-RPC method: a known MCP method or one of the
/// fixed labels below, never text of the client's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpcMethod(&'static str);

impl RpcMethod {
    /// A body that is a JSON-RPC batch (an array).
    pub const BATCH: RpcMethod = RpcMethod("batch");
    /// A message whose `method` is not a known MCP method.
    pub const OTHER: RpcMethod = RpcMethod("other");
    /// A body without a string `method` at the top level, or not JSON at all.
    pub const INVALID: RpcMethod = RpcMethod("invalid");
    /// A request whose body nobody read (it was refused before that).
    pub const UNREAD: RpcMethod = RpcMethod("unread");

    /// The label of a message's `method`: the method itself when it is a known MCP
    /// method, [`OTHER`](Self::OTHER) for any other, [`INVALID`](Self::INVALID) for none.
    pub fn of(method: Option<&str>) -> RpcMethod {
        match method {
            Some(method) => KNOWN_METHODS
                .iter()
                .find(|known| **known == method)
                .map_or(RpcMethod::OTHER, |known| RpcMethod(known)),
            None => RpcMethod::INVALID,
        }
    }

    /// The label as the metrics and the request span write it.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

/// Where the layer that reads a request's body leaves its [`RpcMethod`] for the metrics
/// layer around it; the first label set stays. Cheap to clone: clones share the slot.
#[derive(Debug, Clone, Default)]
pub struct RpcMethodSlot(Arc<OnceLock<RpcMethod>>);

impl RpcMethodSlot {
    /// Records the request's label, unless one was recorded already.
    pub fn set(&self, method: RpcMethod) {
        let _ = self.0.set(method);
    }

    /// The recorded label, or [`RpcMethod::UNREAD`] when none was.
    pub fn get(&self) -> RpcMethod {
        self.0.get().copied().unwrap_or(RpcMethod::UNREAD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_known_methods_or_fixed_words() {
        assert_eq!(RpcMethod::of(Some("tools/call")).as_str(), "tools/call");
        assert_eq!(RpcMethod::of(Some("evil/one")), RpcMethod::OTHER);
        assert_eq!(RpcMethod::of(Some(&"x".repeat(10_000))), RpcMethod::OTHER);
        assert_eq!(RpcMethod::of(None), RpcMethod::INVALID);
        let labels = [RpcMethod::BATCH, RpcMethod::OTHER, RpcMethod::INVALID, RpcMethod::UNREAD];
        assert_eq!(labels.map(RpcMethod::as_str), ["batch", "other", "invalid", "unread"]);
    }

    #[test]
    fn a_slot_keeps_its_first_label_and_is_unread_until_set() {
        let slot = RpcMethodSlot::default();
        let shared = slot.clone();
        assert_eq!(slot.get(), RpcMethod::UNREAD);
        shared.set(RpcMethod::of(Some("ping")));
        shared.set(RpcMethod::BATCH);
        assert_eq!(slot.get().as_str(), "ping");
    }
}
