//! When the scan store is down: what needs it answers 503 without saying why, and what
//! does not need it keeps working.

use crate::support;

use std::{sync::Arc, time::SystemTime};

use base64::Engine as _;
use mrtd_store::{ApiKeyRecord, NewScan, Page, ScanRecord, Store, StoreError};
use serde_json::json;
use support::{OpenApi, image, request};

/// A store whose database cannot be reached.
struct Down;

fn down() -> StoreError {
    let cause = std::io::Error::new(
        std::io::ErrorKind::ConnectionRefused,
        "connection to server at db.internal:5432 refused (sqlx pool timed out)",
    );
    StoreError::Unavailable { source: Box::new(cause) }
}

#[async_trait::async_trait]
impl Store for Down {
    async fn insert(&self, _: NewScan) -> Result<ScanRecord, StoreError> {
        Err(down())
    }
    async fn get(&self, _: &str, _: &str, _: SystemTime) -> Result<ScanRecord, StoreError> {
        Err(down())
    }
    async fn portrait(&self, _: &str, _: &str, _: SystemTime) -> Result<Vec<u8>, StoreError> {
        Err(down())
    }
    async fn delete(&self, _: &str, _: &str, _: SystemTime) -> Result<(), StoreError> {
        Err(down())
    }
    async fn list(
        &self,
        _: &str,
        _: SystemTime,
        _: Option<&str>,
        _: u32,
    ) -> Result<Page, StoreError> {
        Err(down())
    }
    async fn purge_expired(&self, _: SystemTime) -> Result<u64, StoreError> {
        Err(down())
    }
    async fn ping(&self) -> Result<(), StoreError> {
        Err(down())
    }
    async fn redeem(&self, _: &str, _: SystemTime) -> Result<bool, StoreError> {
        Err(down())
    }
    async fn create_api_key(&self, _: &str, _: &str) -> Result<ApiKeyRecord, StoreError> {
        Err(down())
    }
    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        Err(down())
    }
    async fn revoke_api_key(&self, _: &str) -> Result<ApiKeyRecord, StoreError> {
        Err(down())
    }
    async fn find_api_key_by_hash(&self, _: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        Err(down())
    }
}

fn assert_unavailable(reply: &support::Reply) {
    assert_eq!(reply.status, 503, "{}", reply.text());
    assert!(reply.header("retry-after").is_some());
    let body = reply.json();
    assert_eq!(body["error"]["code"], "store_unavailable");
    let text = reply.text();
    for secret in ["db.internal", "5432", "sqlx", "refused"] {
        assert!(!text.contains(secret), "the reply leaks {secret}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_outage_is_503_and_reading_without_keeping_still_works() {
    let server = support::start_with_store(Arc::new(Down)).await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;

    let list = request(addr, "GET", "/v1/scans", &[], b"").await;
    api.check("GET", "/v1/scans", &list);
    assert_unavailable(&list);
    let get = request(addr, "GET", "/v1/scans/scn_x", &[], b"").await;
    api.check("GET", "/v1/scans/{id}", &get);
    assert_unavailable(&get);
    let delete = request(addr, "DELETE", "/v1/scans/scn_x", &[], b"").await;
    api.check("DELETE", "/v1/scans/{id}", &delete);
    assert_unavailable(&delete);

    let encoded = base64::engine::general_purpose::STANDARD.encode(image("100_pass-uto.jpg"));
    let json = ("Content-Type", "application/json");
    let keep = json!({ "image_base64": encoded, "retain_hours": 1 }).to_string();
    let kept = request(addr, "POST", "/v1/scans", &[json], keep.as_bytes()).await;
    api.check("POST", "/v1/scans", &kept);
    assert_unavailable(&kept);
    let once = json!({ "image_base64": encoded }).to_string();
    let read = request(addr, "POST", "/v1/scans", &[json], once.as_bytes()).await;
    api.check("POST", "/v1/scans", &read);
    assert_eq!(read.status, 200, "a scan that keeps nothing needs no store");
    assert_eq!(read.json()["fields"]["surname"], "ERIKSSON");
}
