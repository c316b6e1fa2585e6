//! Open `subscriptions/listen` streams and the list-changed triggers that feed them.
//!
//! rmcp acknowledges a subscription, tags every notification with its subscription id
//! and refuses notification types outside the accepted filter. The hub only has to
//! remember which streams are open right now, so a change reaches exactly those.

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use rmcp::service::SubscriptionSink;

/// A change the fixture can announce to subscribers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Tools,
    Prompts,
    Resources,
}

/// The set of open subscription streams of this process.
#[derive(Default)]
pub struct Hub {
    next_id: AtomicU64,
    sinks: Arc<Mutex<BTreeMap<u64, SubscriptionSink>>>,
}

/// Keeps a stream registered until dropped.
pub struct Registration {
    id: u64,
    sinks: Arc<Mutex<BTreeMap<u64, SubscriptionSink>>>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Ok(mut sinks) = self.sinks.lock() {
            sinks.remove(&self.id);
        }
    }
}

impl Hub {
    /// Registers an acknowledged stream; it stays registered while the guard lives.
    pub fn register(&self, sink: SubscriptionSink) -> Registration {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut sinks) = self.sinks.lock() {
            sinks.insert(id, sink);
        }
        Registration { id, sinks: self.sinks.clone() }
    }

    /// Sends `notifications/resources/updated` for `uri` to every open stream subscribed
    /// to that resource; returns how many got it.
    pub async fn announce_update(&self, uri: &str) -> usize {
        let mut delivered = 0;
        for sink in self.snapshot() {
            let subscribed = sink
                .accepted()
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.iter().any(|u| u == uri));
            if !subscribed {
                continue;
            }
            match sink.notify_resource_updated(uri).await {
                Ok(()) => delivered += 1,
                Err(error) => tracing::debug!(%error, "subscription stream did not take an update"),
            }
        }
        delivered
    }

    fn snapshot(&self) -> Vec<SubscriptionSink> {
        self.sinks.lock().map(|sinks| sinks.values().cloned().collect()).unwrap_or_default()
    }

    /// Sends `change` to every open stream that asked for it; returns how many got it.
    pub async fn announce(&self, change: Change) -> usize {
        let mut delivered = 0;
        for sink in self.snapshot() {
            let accepted = sink.accepted();
            let wanted = match change {
                Change::Tools => accepted.tools_list_changed == Some(true),
                Change::Prompts => accepted.prompts_list_changed == Some(true),
                Change::Resources => accepted.resources_list_changed == Some(true),
            };
            if !wanted {
                continue;
            }
            let sent = match change {
                Change::Tools => sink.notify_tool_list_changed().await,
                Change::Prompts => sink.notify_prompt_list_changed().await,
                Change::Resources => sink.notify_resource_list_changed().await,
            };
            match sent {
                Ok(()) => delivered += 1,
                Err(error) => tracing::debug!(%error, "subscription stream did not take a change"),
            }
        }
        delivered
    }
}
