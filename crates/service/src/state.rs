//! What every request shares: the engine, the store and the settings.

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, SystemTime},
};

use mrtd_engine::Engine;

use crate::{
    ImageFetch,
    gate::{RecognitionGate, Turn},
    image_file::ImageDir,
    metrics::RecognitionTicket,
    read::PhotoRead,
    result::DocumentResult,
};
use mrtd_store::{ApiKeyRecord, NewScan, Page, ScanRecord, Store, StoreError};

/// Settings of the document operations.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// The only directory `image_path` may name files in; `None` disables `image_path`.
    pub image_dir: Option<PathBuf>,
    /// Recognitions that may run at once, on every door together; further calls wait their
    /// turn ([`crate::gate::RecognitionGate`]).
    pub max_concurrent_reads: usize,
    /// How long a recognition waits for a slot before it is refused as busy.
    pub read_wait: Duration,
}

impl ServiceConfig {
    /// No image directory; as many recognitions at once as there are CPUs, each waiting at
    /// most 10 seconds for its turn.
    pub fn new() -> Self {
        ServiceConfig {
            image_dir: None,
            max_concurrent_reads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            read_wait: Duration::from_secs(10),
        }
    }
}

impl Default for ServiceConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// Errors found while building the shared state.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The image directory does not exist or cannot be resolved.
    #[error("the image directory {0} does not exist or is not a directory")]
    ImageDir(PathBuf),
}

/// The state shared by every request; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub(crate) engine: Arc<Engine>,
    pub(crate) store: Arc<dyn Store>,
    /// The image directory, opened once.
    pub(crate) image_dir: Option<ImageDir>,
    /// The one bound on recognitions running at once, fair between callers.
    pub(crate) reads: RecognitionGate,
    /// The CSCA certificates and master lists chip verification trusts (empty: none).
    pub(crate) trust: Arc<mrtd_chip::TrustStore>,
    /// What fetches `image_url`; `None` disables it.
    pub(crate) image_urls: Option<Arc<dyn ImageFetch>>,
    /// The memory answers built from files may hold at once.
    pub(crate) answers: crate::AnswerBudget,
    /// The pixels recognitions may hold decoded at once.
    pub(crate) pixels: crate::budget::PixelBudget,
}

impl AppState {
    /// Builds the shared state, resolving the image directory once.
    pub fn new(
        engine: Arc<Engine>,
        store: Arc<dyn Store>,
        config: &ServiceConfig,
    ) -> Result<Self, StateError> {
        let image_dir = match &config.image_dir {
            Some(dir) => Some(
                ImageDir::open(dir, engine.config().max_bytes)
                    .map_err(|_| StateError::ImageDir(dir.clone()))?,
            ),
            None => None,
        };
        Ok(AppState {
            engine,
            store: Arc::new(ObservedStore(store)),
            image_dir,
            reads: RecognitionGate::new(config.max_concurrent_reads, config.read_wait),
            trust: Arc::new(mrtd_chip::TrustStore::new()),
            image_urls: None,
            answers: crate::AnswerBudget::new(
                crate::budget::DEFAULT_ANSWER_MEMORY_BYTES,
                std::time::Duration::from_secs(10),
            ),
            pixels: crate::budget::PixelBudget::new(
                crate::budget::DEFAULT_DECODED_PIXELS,
                std::time::Duration::from_secs(10),
            ),
        })
    }

    /// The same state with the trust store `verify_chip` checks document signers against.
    pub fn with_trust_store(mut self, trust: mrtd_chip::TrustStore) -> Self {
        self.trust = Arc::new(trust);
        self
    }

    /// The same state fetching `image_url` arguments with `fetcher`.
    pub fn with_image_fetcher(mut self, fetcher: Arc<dyn ImageFetch>) -> Self {
        self.image_urls = Some(fetcher);
        self
    }

    /// The same state with `budget` for the answers built from files (`resources/read` of
    /// a photo).
    pub fn with_answer_budget(mut self, budget: crate::AnswerBudget) -> Self {
        self.answers = budget;
        self
    }

    /// The same state with `budget` for the pixels recognitions hold decoded.
    pub fn with_pixel_budget(mut self, budget: crate::budget::PixelBudget) -> Self {
        self.pixels = budget;
        self
    }

    /// The memory budget of answers built from files.
    pub fn answer_budget(&self) -> &crate::AnswerBudget {
        &self.answers
    }

    /// The directory `image_path` arguments name files in, when one is configured.
    pub fn image_dir(&self) -> Option<&ImageDir> {
        self.image_dir.as_ref()
    }

    /// Waits, in `caller`'s turn, for a slot of the recognition gate, and returns the turn
    /// holding it: the reads made in that turn use it, and it is given back once the turn
    /// and its clones are dropped. The HTTP front admits a recognition so, before the
    /// request reaches its handler, where the photo would be copied while it waited.
    pub async fn admit(&self, caller: &str) -> Result<Turn, crate::ServiceError> {
        let slot = self.reads.enter(caller).await.ok_or_else(|| self.busy())?;
        Ok(Turn::new(caller).holding(slot))
    }

    /// The refusal of a read that found no slot in time.
    fn busy(&self) -> crate::ServiceError {
        crate::ServiceError::Busy(self.reads.wait().as_secs().max(1))
    }

    /// Reads one image on the blocking pool, at most `max_concurrent_reads` at a time, in
    /// `turn` (refused as [`crate::ServiceError::Busy`] when no slot comes in time); with
    /// `images`, also draws the page and the portrait it located, at that many pixels per
    /// page millimetre.
    pub(crate) async fn recognise(
        &self,
        turn: &Turn,
        image: Vec<u8>,
        date: mrtd_mrz::Date,
        extras: crate::ops::Extras,
    ) -> Result<DocumentResult, crate::ServiceError> {
        Ok(self.recognise_keeping(turn, image, date, extras).await?.result)
    }

    /// [`AppState::recognise`], giving back the photo and the engine's reading of it (for
    /// the visual zone of a document photographed on both sides, [`AppState::sides`]).
    pub(crate) async fn recognise_keeping(
        &self,
        turn: &Turn,
        image: Vec<u8>,
        date: mrtd_mrz::Date,
        extras: crate::ops::Extras,
    ) -> Result<PhotoRead, crate::ServiceError> {
        use crate::ServiceError;
        // The ticket counts this read as queued now, as running once it has a slot, and
        // leaves both gauges when dropped, also when the caller goes away while waiting.
        let mut ticket = RecognitionTicket::queued();
        let _admitted = self.admit_read(turn, self.engine.pixels_to_decode(&image)).await?;
        ticket.start();
        let engine = self.engine.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            crate::read::read_photo(&engine, image, &mrtd_mrz::ParseOptions::new(date), extras)
        })
        .await
        .map_err(|_| ServiceError::UnusableImage("the image could not be processed".to_owned()))?;
        crate::metrics::record_decoded_pixels();
        match outcome {
            Ok(read) => {
                ticket.finish(read.result.status_label());
                Ok(read)
            }
            Err(error) => {
                ticket.finish("unusable");
                Err(ServiceError::UnusableImage(format!("The image could not be used: {error}")))
            }
        }
    }

    /// The result of a document's two sides ([`crate::read::sides`]); with `visual_zone`,
    /// the visual zone of both is read in `turn` as a recognition is.
    pub(crate) async fn sides(
        &self,
        turn: &Turn,
        first: PhotoRead,
        second: PhotoRead,
        visual_zone: bool,
    ) -> Result<DocumentResult, crate::ServiceError> {
        if !visual_zone {
            return Ok(crate::read::sides(&self.engine, first, second, false));
        }
        let pixels = crate::read::pixels_to_read_again(&self.engine, &first, &second);
        let _admitted = self.admit_read(turn, pixels).await?;
        let engine = self.engine.clone();
        tokio::task::spawn_blocking(move || crate::read::sides(&engine, first, second, true))
            .await
            .map_err(|_| {
                crate::ServiceError::UnusableImage("the image could not be processed".to_owned())
            })
    }

    /// A slot of the gate (unless `turn` holds one already, admitted at the HTTP front) and
    /// `pixels` of the pixel budget, taken before a photo is decoded and held until the
    /// returned guards are dropped.
    async fn admit_read(
        &self,
        turn: &Turn,
        pixels: u64,
    ) -> Result<(Option<crate::gate::ReadPermit>, crate::budget::BudgetShare), crate::ServiceError>
    {
        let permit = if turn.holds_a_slot() {
            None
        } else {
            Some(self.reads.enter(turn.caller()).await.ok_or_else(|| self.busy())?)
        };
        let pixels = self
            .pixels
            .take(pixels)
            .await
            .map_err(|_| crate::ServiceError::Busy(self.pixels.wait().as_secs().max(1)))?;
        Ok((permit, pixels))
    }
}

/// The store as every request uses it: each failure that is not the caller's (a missing
/// scan, a bad cursor, a name in use) is counted in `mrtd_store_errors_total`.
struct ObservedStore(Arc<dyn Store>);

/// Passes `result` through, counting it when it is a failure of the store itself.
fn observed<T>(operation: &'static str, result: Result<T, StoreError>) -> Result<T, StoreError> {
    if let Err(error) = &result
        && !matches!(
            error,
            StoreError::NotFound | StoreError::InvalidCursor | StoreError::Conflict { .. }
        )
    {
        crate::metrics::record_store_error(operation);
    }
    result
}

#[async_trait::async_trait]
impl Store for ObservedStore {
    async fn insert(&self, new_scan: NewScan) -> Result<ScanRecord, StoreError> {
        observed("insert", self.0.insert(new_scan).await)
    }

    async fn get(&self, owner: &str, id: &str, now: SystemTime) -> Result<ScanRecord, StoreError> {
        observed("get", self.0.get(owner, id, now).await)
    }

    async fn portrait(
        &self,
        owner: &str,
        id: &str,
        now: SystemTime,
    ) -> Result<Vec<u8>, StoreError> {
        observed("portrait", self.0.portrait(owner, id, now).await)
    }

    async fn delete(&self, owner: &str, id: &str, now: SystemTime) -> Result<(), StoreError> {
        observed("delete", self.0.delete(owner, id, now).await)
    }

    async fn list(
        &self,
        owner: &str,
        now: SystemTime,
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<Page, StoreError> {
        observed("list", self.0.list(owner, now, cursor, limit).await)
    }

    async fn purge_expired(&self, now: SystemTime) -> Result<u64, StoreError> {
        observed("purge_expired", self.0.purge_expired(now).await)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        observed("ping", self.0.ping().await)
    }

    async fn redeem(&self, nonce: &str, expires_at: SystemTime) -> Result<bool, StoreError> {
        observed("redeem", self.0.redeem(nonce, expires_at).await)
    }

    async fn create_api_key(&self, name: &str, hash: &str) -> Result<ApiKeyRecord, StoreError> {
        observed("create_api_key", self.0.create_api_key(name, hash).await)
    }

    async fn list_api_keys(&self) -> Result<Vec<ApiKeyRecord>, StoreError> {
        observed("list_api_keys", self.0.list_api_keys().await)
    }

    async fn revoke_api_key(&self, name_or_id: &str) -> Result<ApiKeyRecord, StoreError> {
        observed("revoke_api_key", self.0.revoke_api_key(name_or_id).await)
    }

    async fn find_api_key_by_hash(&self, hash: &str) -> Result<Option<ApiKeyRecord>, StoreError> {
        observed("find_api_key_by_hash", self.0.find_api_key_by_hash(hash).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServiceError;

    /// A state whose gate has one slot and lets a read wait `wait`.
    async fn one_slot(wait: Duration) -> AppState {
        let store = mrtd_store::open("sqlite::memory:").await.expect("an in-memory store");
        let engine = Arc::new(mrtd_engine::EngineBuilder::new().build());
        let config =
            ServiceConfig { max_concurrent_reads: 1, read_wait: wait, ..ServiceConfig::new() };
        AppState::new(engine, store, &config).expect("a state")
    }

    /// A small blank photo: read at once, without an MRZ.
    fn blank_photo() -> Vec<u8> {
        let mut bytes = std::io::Cursor::new(Vec::new());
        image::GrayImage::from_pixel(64, 48, image::Luma([255]))
            .write_to(&mut bytes, image::ImageFormat::Png)
            .expect("a PNG");
        bytes.into_inner()
    }

    fn today() -> mrtd_mrz::Date {
        crate::ops::reference_date(None).expect("today")
    }

    #[tokio::test]
    async fn a_read_with_no_slot_in_time_is_refused_as_busy() {
        let state = one_slot(Duration::from_secs(3)).await;
        tokio::time::pause();
        let held = state.reads.enter("alice").await.expect("the free slot");
        let refused =
            state.recognise(&Turn::new("bob"), blank_photo(), today(), Default::default()).await;
        assert!(matches!(refused, Err(ServiceError::Busy(3))), "{refused:?}");
        drop(held);
        let read =
            state.recognise(&Turn::new("bob"), blank_photo(), today(), Default::default()).await;
        assert_eq!(read.expect("a result").status_label(), "no_mrz");
    }

    #[tokio::test]
    async fn an_admitted_turn_reads_in_the_slot_it_holds() {
        let state = one_slot(Duration::from_secs(3)).await;
        tokio::time::pause();
        let admitted = state.admit("alice").await.expect("the free slot");
        // Both sides of one call read in the slot the turn holds, and nobody else reads.
        for _ in 0..2 {
            let read = state.recognise(&admitted, blank_photo(), today(), Default::default()).await;
            assert_eq!(read.expect("a result").status_label(), "no_mrz");
        }
        assert!(matches!(state.admit("bob").await, Err(ServiceError::Busy(3))));
        let refused =
            state.recognise(&Turn::new("bob"), blank_photo(), today(), Default::default()).await;
        assert!(matches!(refused, Err(ServiceError::Busy(3))), "{refused:?}");
        // The slot is given back once the turn and its clones are dropped.
        let copy = admitted.clone();
        drop(admitted);
        assert!(matches!(state.admit("bob").await, Err(ServiceError::Busy(3))));
        drop(copy);
        assert!(state.admit("bob").await.is_ok());
    }

    #[tokio::test]
    async fn a_waiting_read_runs_once_the_slot_is_given_back() {
        let state = one_slot(Duration::from_secs(60)).await;
        tokio::time::pause();
        let held = state.reads.enter("alice").await.expect("the free slot");
        let waiting = tokio::spawn({
            let state = state.clone();
            async move {
                state.recognise(&Turn::new("bob"), blank_photo(), today(), Default::default()).await
            }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "the read waits while the slot is held");
        drop(held);
        let read = waiting.await.expect("the task").expect("a result");
        assert_eq!(read.status_label(), "no_mrz");
    }
}
