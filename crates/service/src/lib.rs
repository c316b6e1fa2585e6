//! mrtd's document operations without a transport: what the MCP tools and the REST API
//! both do, for one caller.
//!
//! [`AppState`] holds the engine, the store and the limits every request shares;
//! [`ops`] reads photos, keeps, lists, gets and deletes scans and parses typed text
//! ([`read`] reads a photo into its result, for every door);
//! [`check`] answers yes/no questions about a document without its fields;
//! [`chip`] verifies the chip data an NFC reader app read (Passive Authentication);
//! every operation takes the caller's [`Principal`], and every failure is a
//! [`ServiceError`] whose text is safe to show. The transports (the MCP handler, the
//! REST API) turn requests into these calls and their results into responses; the
//! composition (the `mrtd` binary) tells them who the caller is.

mod access;
pub mod arguments;
pub mod budget;
pub mod check;
pub mod chip;
mod dates;
pub mod docs;
pub mod gate;
mod image_file;
mod image_url;
pub mod kept;
pub mod metrics;
pub mod ops;
mod principal;
pub mod read;
pub mod result;
pub mod schema;
mod state;

pub use access::Access;
pub use budget::{AnswerBudget, ResponseHold};
pub use dates::today;
pub use gate::Turn;
pub use image_file::{
    IMAGE_EXTENSIONS, IMAGE_PREFIX, ImageDir, ImageFileError, ListedImage, image_path_of,
    image_uri, media_type,
};
pub use image_url::{FetchedImage, ImageFetch};
pub use ops::ServiceError;
pub use principal::Principal;
pub use state::{AppState, ServiceConfig, StateError};
