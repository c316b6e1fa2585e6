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

/// An `image_url` the HTTP front fetched before the request took a recognition slot, so
/// that a slow server at the URL holds no recogniser. Put into the request's extensions by
/// the composition; the tool or route that reads the photo takes it once, for the same URL.
#[derive(Clone)]
pub struct FetchedImage {
    url: std::sync::Arc<str>,
    outcome: std::sync::Arc<std::sync::Mutex<Option<Fetched>>>,
}

/// A fetch's body, or why it was not fetched.
type Fetched = Result<Vec<u8>, String>;

impl FetchedImage {
    /// What fetching `url` gave: its body, or why it was not fetched.
    pub fn new(url: &str, outcome: Fetched) -> Self {
        FetchedImage {
            url: url.into(),
            outcome: std::sync::Arc::new(std::sync::Mutex::new(Some(outcome))),
        }
    }

    /// The outcome for `url`, once: `None` for another URL or when it was taken already.
    pub fn take(&self, url: &str) -> Option<Fetched> {
        if *self.url != *url {
            return None;
        }
        self.outcome.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }
}

impl std::fmt::Debug for FetchedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL is the caller's argument: not for logs.
        f.debug_struct("FetchedImage").finish_non_exhaustive()
    }
}
