//! What every request shares: the engine, the store and the settings.

use std::{path::PathBuf, sync::Arc};

use mrtd_engine::Engine;
use mrtd_store::Store;
use rmcp::model::RequestStateCodec;
use tokio::sync::Semaphore;

/// Settings of the MCP layer.
#[derive(Debug, Clone)]
pub struct McpConfig {
    /// The only directory `image_path` may name files in; `None` disables `image_path`.
    pub image_dir: Option<PathBuf>,
    /// Key for the integrity tag of `requestState` (at least 32 bytes). Replicas that
    /// serve the same clients must share it.
    pub request_state_key: Vec<u8>,
    /// Recognitions that may run at once; further calls wait their turn.
    pub max_concurrent_reads: usize,
}

/// Errors found while building the shared state.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The image directory does not exist or cannot be resolved.
    #[error("the image directory {0} does not exist or is not a directory")]
    ImageDir(PathBuf),
    /// The request-state key is too short.
    #[error("the request-state key must be at least 32 bytes")]
    RequestStateKey,
}

/// The state shared by every request; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) engine: Arc<Engine>,
    pub(crate) store: Arc<dyn Store>,
    /// Canonical form of the image directory.
    pub(crate) image_dir: Option<PathBuf>,
    pub(crate) codec: RequestStateCodec,
    pub(crate) reads: Arc<Semaphore>,
}

impl AppState {
    /// Builds the shared state, resolving the image directory once.
    pub fn new(
        engine: Arc<Engine>,
        store: Arc<dyn Store>,
        config: &McpConfig,
    ) -> Result<Self, StateError> {
        let image_dir = match &config.image_dir {
            Some(dir) => {
                let canonical =
                    dir.canonicalize().map_err(|_| StateError::ImageDir(dir.clone()))?;
                if !canonical.is_dir() {
                    return Err(StateError::ImageDir(dir.clone()));
                }
                Some(canonical)
            }
            None => None,
        };
        let codec = RequestStateCodec::try_new(config.request_state_key.clone())
            .map_err(|_| StateError::RequestStateKey)?;
        Ok(AppState {
            engine,
            store,
            image_dir,
            codec,
            reads: Arc::new(Semaphore::new(config.max_concurrent_reads.max(1))),
        })
    }

    /// The store, for front ends that serve scans outside MCP (the REST API).
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The engine, for front ends that read images outside MCP.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Reads one image on the blocking pool, at most `max_concurrent_reads` at a time,
    /// and renders the result as the tools' structured content.
    pub(crate) async fn recognise(
        &self,
        image: Vec<u8>,
        date: mrtd_mrz::Date,
    ) -> Result<serde_json::Value, String> {
        let _permit =
            self.reads.acquire().await.map_err(|_| "the server is shutting down".to_owned())?;
        let engine = self.engine.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            engine.read(&image, &mrtd_mrz::ParseOptions::new(date))
        })
        .await
        .map_err(|_| "the image could not be processed".to_owned())?;
        match outcome {
            Ok(reading) => Ok(crate::result::from_image(&reading)),
            Err(error) => Err(format!("The image could not be used: {error}")),
        }
    }
}
