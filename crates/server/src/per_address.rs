//! The connections each client address may hold open at once.
//!
//! The global connection cap bounds what all clients cost together; without a share per
//! address, one client could take every slot and leave the others waiting in the backlog.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::{Arc, Mutex},
};

/// What a client is counted under: an IPv4 address (also when it arrives mapped into IPv6
/// on a dual-stack socket), or an IPv6 address's /64, because one host is commonly given a
/// whole /64 and could otherwise spread its connections over as many addresses as it likes.
pub(crate) fn client_prefix(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(prefix.into())
        }
    }
}

/// The open connections of each client address, within a cap.
#[derive(Debug)]
pub(crate) struct AddressSlots {
    /// Connections one address may hold; 0 means no cap.
    limit: usize,
    /// Open connections by [`client_prefix`]; an address with none has no entry, so the
    /// map holds no more entries than there are open connections.
    open: Mutex<HashMap<IpAddr, usize>>,
}

impl AddressSlots {
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(AddressSlots { limit, open: Mutex::new(HashMap::new()) })
    }

    /// A slot for a connection from `peer`, or `None` when its address holds the cap already.
    pub(crate) fn try_take(self: &Arc<Self>, peer: IpAddr) -> Option<AddressSlot> {
        let key = client_prefix(peer);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(key).or_insert(0);
        if self.limit > 0 && *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(AddressSlot { slots: Arc::clone(self), key })
    }

    /// Open connections counted under `peer`'s address.
    #[cfg(test)]
    fn open(&self, peer: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.get(&client_prefix(peer)).copied().unwrap_or(0)
    }
}

/// One open connection of an address; dropping it frees the slot.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    slots: Arc<AddressSlots>,
    key: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_gets_its_cap_and_no_more() {
        let slots = AddressSlots::new(2);
        let first = slots.try_take(ip("192.0.2.1")).expect("first");
        let second = slots.try_take(ip("192.0.2.1")).expect("second");
        assert!(slots.try_take(ip("192.0.2.1")).is_none());
        // Other addresses are still served.
        let other = slots.try_take(ip("192.0.2.2")).expect("another address");
        assert_eq!(slots.open(ip("192.0.2.1")), 2);
        // A closed connection frees its slot.
        drop(first);
        let third = slots.try_take(ip("192.0.2.1")).expect("a freed slot");
        drop((second, third, other));
        assert!(slots.open.lock().unwrap().is_empty(), "no entry outlives its connections");
    }

    #[test]
    fn an_ipv6_slash_64_counts_as_one_address() {
        let slots = AddressSlots::new(2);
        let _a = slots.try_take(ip("2001:db8:1:2::1")).unwrap();
        let _b = slots.try_take(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")).unwrap();
        assert!(slots.try_take(ip("2001:db8:1:2:abcd::9")).is_none());
        assert!(slots.try_take(ip("2001:db8:1:3::1")).is_some(), "the next /64 is another");
    }

    #[test]
    fn an_ipv4_address_mapped_into_ipv6_is_the_same_address() {
        let slots = AddressSlots::new(1);
        let _v4 = slots.try_take(ip("198.51.100.7")).unwrap();
        assert!(slots.try_take(ip("::ffff:198.51.100.7")).is_none());
        assert_eq!(client_prefix(ip("::ffff:198.51.100.7")), ip("198.51.100.7"));
    }

    #[test]
    fn a_cap_of_zero_is_no_cap() {
        let slots = AddressSlots::new(0);
        let held: Vec<_> = (0..1000).map(|_| slots.try_take(ip("192.0.2.1")).unwrap()).collect();
        assert_eq!(slots.open(ip("192.0.2.1")), held.len());
    }
}
