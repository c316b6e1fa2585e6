//! The one bound on recognitions running at once, shared fairly between callers: every
//! door (MCP over HTTP or stdio, REST, the web page) reads photos through it.
//!
//! A read waits a bounded time for a slot and is then refused ([`crate::ServiceError::Busy`]),
//! never left hanging. Over HTTP the front takes the slot before the handler
//! ([`crate::AppState::admit`]; refused with `503` and `Retry-After`) and the request's
//! [`Turn`] carries it to the reads; over stdio a read waits in the service (refused as a
//! tool error advising a retry).

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::oneshot;

/// Whose turn a recognition waits in: the authenticated caller, or, without authentication,
/// the client's address, so that one client's burst does not queue every other behind it.
/// The HTTP front names it; elsewhere it is the principal's. It may carry a slot its
/// request already holds ([`crate::AppState::admit`]), which its reads then use.
#[derive(Debug, Clone)]
pub struct Turn {
    caller: String,
    slot: Option<ReadSlot>,
}

impl Turn {
    /// The turn of `caller`, holding no slot yet.
    pub fn new(caller: impl Into<String>) -> Self {
        Turn { caller: caller.into(), slot: None }
    }

    /// The turn of `principal` when no transport names a finer one.
    pub fn of(principal: &crate::Principal) -> Self {
        Turn::new(principal.0.clone())
    }

    /// Who the turn is of.
    pub fn caller(&self) -> &str {
        &self.caller
    }

    /// The same turn holding `slot`.
    pub(crate) fn holding(mut self, slot: ReadPermit) -> Self {
        self.slot = Some(ReadSlot { _held: Arc::new(slot) });
        self
    }

    /// Whether the turn already holds a slot.
    pub(crate) fn holds_a_slot(&self) -> bool {
        self.slot.is_some()
    }
}

/// A slot held for one request's reads, given back when its last holder is dropped.
#[derive(Debug, Clone)]
struct ReadSlot {
    /// Given back to the gate when dropped.
    _held: Arc<ReadPermit>,
}

/// The global bound on recognitions running at once, shared fairly between callers.
///
/// A free slot goes to the callers that wait in turn (round robin), each caller's requests
/// in the order they came: a caller with many slow photos queued cannot keep another
/// caller's single photo waiting for more than one recognition.
#[derive(Debug, Clone)]
pub struct RecognitionGate {
    state: Arc<Mutex<GateState>>,
    wait: Duration,
}

#[derive(Debug, Default)]
struct GateState {
    /// Slots nobody holds. While it is above zero nobody waits.
    free: usize,
    /// Each waiting caller's waiters, oldest first.
    queues: HashMap<String, VecDeque<Waiter>>,
    /// The callers with waiters, in the order their turn comes.
    turns: VecDeque<String>,
    next_ticket: u64,
}

#[derive(Debug)]
struct Waiter {
    ticket: u64,
    wake: oneshot::Sender<()>,
}

/// A recognition slot, given back (to the next caller in turn) when dropped.
#[derive(Debug)]
pub struct ReadPermit {
    state: Arc<Mutex<GateState>>,
}

impl Drop for ReadPermit {
    fn drop(&mut self) {
        release(&self.state);
    }
}

/// Hands a slot to the next caller in turn, or marks it free.
fn release(state: &Mutex<GateState>) {
    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
    while let Some(caller) = state.turns.pop_front() {
        let Some(queue) = state.queues.get_mut(&caller) else { continue };
        let waiter = queue.pop_front();
        if queue.is_empty() {
            state.queues.remove(&caller);
        } else {
            state.turns.push_back(caller);
        }
        // A waiter that went away (its client disconnected) is skipped.
        if let Some(waiter) = waiter
            && waiter.wake.send(()).is_ok()
        {
            return;
        }
    }
    state.free += 1;
}

/// Removes a waiter that stops waiting; `false` when it had already been handed a slot.
fn withdraw(state: &Mutex<GateState>, caller: &str, ticket: u64) -> bool {
    let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
    let Some(queue) = state.queues.get_mut(caller) else { return false };
    let Some(position) = queue.iter().position(|w| w.ticket == ticket) else { return false };
    queue.remove(position);
    if queue.is_empty() {
        state.queues.remove(caller);
        state.turns.retain(|c| c != caller);
    }
    true
}

/// Withdraws a waiter whose request is dropped while it waits.
struct Withdraw<'a> {
    state: &'a Arc<Mutex<GateState>>,
    caller: &'a str,
    ticket: u64,
    armed: bool,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if self.armed && !withdraw(self.state, self.caller, self.ticket) {
            // The slot was handed over just as the request went away: pass it on.
            release(self.state);
        }
    }
}

impl RecognitionGate {
    /// At most `slots` recognitions at once; a caller waits at most `wait` for a slot.
    pub fn new(slots: usize, wait: Duration) -> Self {
        let state = GateState { free: slots.max(1), ..GateState::default() };
        RecognitionGate { state: Arc::new(Mutex::new(state)), wait }
    }

    /// How long a caller waits for a slot before it is refused.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// A slot for `caller`, held until the permit is dropped, or `None` when none came to
    /// this caller in time.
    pub async fn enter(&self, caller: &str) -> Option<ReadPermit> {
        let (ticket, woken) = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if state.free > 0 {
                state.free -= 1;
                return Some(ReadPermit { state: self.state.clone() });
            }
            let ticket = state.next_ticket;
            state.next_ticket += 1;
            let (wake, woken) = oneshot::channel();
            let queue = state.queues.entry(caller.to_owned()).or_default();
            queue.push_back(Waiter { ticket, wake });
            if queue.len() == 1 {
                state.turns.push_back(caller.to_owned());
            }
            (ticket, woken)
        };
        let mut guard = Withdraw { state: &self.state, caller, ticket, armed: true };
        let outcome = tokio::time::timeout(self.wait, woken).await;
        guard.armed = false;
        match outcome {
            Ok(Ok(())) => Some(ReadPermit { state: self.state.clone() }),
            _ => {
                if withdraw(&self.state, caller, ticket) {
                    None
                } else {
                    // Handed a slot at the last moment: take it.
                    Some(ReadPermit { state: self.state.clone() })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn gate_waits_a_bounded_time() {
        let gate = RecognitionGate::new(1, Duration::from_secs(2));
        let held = gate.enter("alice").await.expect("a free slot");
        assert!(gate.enter("bob").await.is_none(), "the only slot is taken");
        drop(held);
        assert!(gate.enter("bob").await.is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn a_free_slot_goes_to_the_next_caller_in_turn() {
        let gate = RecognitionGate::new(1, Duration::from_secs(60));
        let held = gate.enter("alice").await.expect("a free slot");
        // Alice queues three more, then Bob one.
        let (tx, mut order) = tokio::sync::mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        for caller in ["alice", "alice", "alice", "bob"] {
            let gate = gate.clone();
            let tx = tx.clone();
            tasks.push(tokio::spawn(async move {
                let permit = gate.enter(caller).await.expect("a slot in time");
                tx.send(caller).unwrap();
                tokio::time::sleep(Duration::from_secs(1)).await;
                drop(permit);
            }));
            tokio::task::yield_now().await;
        }
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        let mut served = Vec::new();
        while let Ok(caller) = order.try_recv() {
            served.push(caller);
        }
        assert_eq!(served, ["alice", "bob", "alice", "alice"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiter_that_goes_away_does_not_keep_the_slot() {
        let gate = RecognitionGate::new(1, Duration::from_secs(60));
        let held = gate.enter("alice").await.expect("a free slot");
        let waiting = {
            let gate = gate.clone();
            tokio::spawn(async move { gate.enter("bob").await.is_some() })
        };
        tokio::task::yield_now().await;
        waiting.abort();
        let _ = waiting.await;
        drop(held);
        assert!(gate.enter("carol").await.is_some(), "the slot is free again");
    }
}
