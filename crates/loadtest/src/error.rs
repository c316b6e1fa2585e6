//! Errors that stop `mrtd-load` before or outside a measured run.

use std::path::PathBuf;

/// A setup problem: bad arguments, unreadable files, a server that cannot be calibrated.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("'{0}' is not an http://HOST:PORT/PATH URL")]
    Url(String),
    #[error("'{0}' is not a request mix such as scan=1,get=4,list=1")]
    Mix(String),
    #[error("reading {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("writing {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no image in {0} reads as a document on this server")]
    NoReadableImage(PathBuf),
    #[error("the server did not answer a calibration request ({kind}): {message}")]
    Calibration { kind: String, message: String },
}
