//! `image_url`: photos fetched from a URL the caller gives.
//!
//! The service only asks; fetching is the composition's [`ImageFetch`], so that this crate
//! links no HTTP client (the served binary plugs in `mrtd-fetch`, which guards against
//! server-side request forgery). Without one, `image_url` is disabled.

/// Fetches the bytes of an image by URL.
#[async_trait::async_trait]
pub trait ImageFetch: Send + Sync {
    /// The body at `url`, or why it was not fetched (a text safe to show to the caller).
    async fn fetch(&self, url: &str) -> Result<Vec<u8>, String>;
}
