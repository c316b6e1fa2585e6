//! `mrtd-load verify`: every scan id in a file is still readable through `get_scan`.
//!
//! After a crash or a database outage this proves that no acknowledged scan was lost.

use std::{
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use serde_json::json;

use crate::{
    client::{self, Connection, Endpoint},
    error::LoadError,
};

/// The outcome of a verification.
#[derive(Debug, Default)]
pub struct Verification {
    pub checked: usize,
    pub found: usize,
    /// Ids the server does not know (`get_scan` answered "No scan with this scan_id").
    pub missing: Vec<String>,
    /// Ids whose check failed for another reason, with the reason.
    pub errors: Vec<(String, String)>,
}

impl Verification {
    pub fn passed(&self) -> bool {
        self.found == self.checked && self.checked > 0
    }

    pub fn print(&self, path: &Path) {
        println!(
            "verify {}: {} ids, {} readable, {} missing, {} errors",
            path.display(),
            self.checked,
            self.found,
            self.missing.len(),
            self.errors.len()
        );
        for id in self.missing.iter().take(10) {
            println!("missing: {id}");
        }
        for (id, why) in self.errors.iter().take(10) {
            println!("error: {id}: {why}");
        }
        println!(
            "RESULT verified={} found={} missing={} errors={}",
            self.checked,
            self.found,
            self.missing.len(),
            self.errors.len()
        );
    }
}

/// Reads the ids in `path` (one per line) and checks each with `get_scan`.
pub async fn verify(
    endpoint: Arc<Endpoint>,
    api_key: Option<Arc<str>>,
    path: &Path,
    connections: usize,
    timeout: Duration,
) -> Result<Verification, LoadError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| LoadError::Read { path: path.to_owned(), source })?;
    let ids: Arc<Vec<String>> = Arc::new(
        text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect(),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..connections.max(1))
        .map(|_| {
            let (ids, next) = (ids.clone(), next.clone());
            let mut connection = Connection::new(endpoint.clone(), api_key.clone(), timeout);
            tokio::spawn(async move {
                let mut part = Verification::default();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(id) = ids.get(index) else { break };
                    part.checked += 1;
                    let params =
                        client::tool_params("get_scan", json!({ "scan_id": id }), &json!({}));
                    match connection.call_tool("get_scan", &params.to_string()).await {
                        Ok(result) if result["structuredContent"]["scan_id"] == id.as_str() => {
                            part.found += 1;
                        }
                        Ok(result) => {
                            part.errors.push((id.clone(), format!("unexpected {result}")))
                        }
                        Err(failure)
                            if failure.message.starts_with("No scan with this scan_id") =>
                        {
                            part.missing.push(id.clone());
                        }
                        Err(failure) => {
                            part.errors.push((
                                id.clone(),
                                format!("{}: {}", failure.kind, failure.message),
                            ));
                        }
                    }
                }
                part
            })
        })
        .collect();
    let mut all = Verification::default();
    for task in tasks {
        if let Ok(part) = task.await {
            all.checked += part.checked;
            all.found += part.found;
            all.missing.extend(part.missing);
            all.errors.extend(part.errors);
        }
    }
    Ok(all)
}
