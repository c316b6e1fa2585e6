//! Exit statuses: one table for every subcommand, shown in `mrtd --help`.
//!
//! A batch reports its worst outcome, in the order success < not read < unusable input, so a
//! script can tell "the photos were poor" (1) from "some files were not photos at all" (3)
//! without parsing the output.

use std::process::ExitCode;

/// The exit statuses of `mrtd`, as `mrtd --help` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Exit {
    /// Everything was read (or the command did what it was asked).
    Success = 0,
    /// Some document was not read: a photo was only partly read or showed no MRZ, or the
    /// text given to `mrtd parse` is not an MRZ or has a check digit that fails, or an answer
    /// of `mrtd check` is not yes.
    NotRead = 1,
    /// Invalid arguments, environment variables or configuration file.
    Usage = 2,
    /// Some input could not be used at all: a missing or unreadable file, a file that is not
    /// an image, an image over the size limits.
    Unusable = 3,
    /// Anything else went wrong: the server could not start or stopped on an error, the
    /// store could not be opened, output could not be written.
    Failure = 4,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// The text `mrtd --help` ends with.
pub(crate) const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  everything was read (or the command did what it was asked)
  1  some document was not read: a photo only partly read or without an MRZ,
     or text that is not an MRZ or whose check digits do not all hold (for
     `mrtd check`, also an answer that is not yes)
  2  invalid arguments, environment variables (MRTD_*) or configuration file
  3  some input could not be used: a missing or unreadable file, not an image,
     an image over the size limits
  4  any other failure: the server could not start, the store could not be
     opened, output could not be written
A batch exits with its worst outcome (3 over 1 over 0).";

/// An error that decides its own exit status; anything else exits with [`Exit::Failure`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The arguments, environment or configuration file are wrong.
    #[error("{0}")]
    Usage(String),
    /// An input cannot be used at all.
    #[error("{0}")]
    Unusable(String),
}

/// The exit status for an error that reached `main`.
pub(crate) fn status_of(error: &anyhow::Error) -> Exit {
    match error.downcast_ref::<CliError>() {
        Some(CliError::Usage(_)) => Exit::Usage,
        Some(CliError::Unusable(_)) => Exit::Unusable,
        None => Exit::Failure,
    }
}

/// Returns early with a usage error (exit status 2).
macro_rules! usage {
    ($($arg:tt)*) => {
        return Err(anyhow::Error::new($crate::exit::CliError::Usage(format!($($arg)*))))
    };
}
pub(crate) use usage;
