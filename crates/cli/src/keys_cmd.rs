//! `mrtd keys`: create, list and revoke the API keys that `mrtd serve --auth api-key` accepts.
//!
//! The keys live in the same store as the scans, so this command takes the same
//! `--data-dir` and `--database-url` as `mrtd serve`. A new key is printed once; the store
//! keeps only its SHA-256.

use std::{path::PathBuf, process::ExitCode, sync::Arc};

use anyhow::Context;
use mrtd_server::auth::{
    api_key::{ApiKeyLookup, ApiKeyLookupError, LookupFuture},
    generate_api_key, hash_api_key,
};
use mrtd_store::{Store, StoreError};

/// Arguments of `mrtd keys`.
#[derive(Debug, clap::Args)]
pub(crate) struct KeysArgs {
    #[command(subcommand)]
    action: KeysAction,
    /// Directory of the embedded database (the same as for `mrtd serve`).
    #[arg(long, env = "MRTD_DATA_DIR", global = true)]
    data_dir: Option<PathBuf>,
    /// Database URL (the same as for `mrtd serve`).
    #[arg(long, env = "MRTD_DATABASE_URL", global = true)]
    database_url: Option<String>,
}

#[derive(Debug, clap::Subcommand)]
enum KeysAction {
    /// Create a key and print it once.
    Create {
        /// A name for the key, unique among live keys; scans made with it belong to `key:NAME`.
        name: String,
    },
    /// List keys (never their secrets).
    List,
    /// Revoke a key by name or id.
    Revoke {
        /// The key's name or id.
        name_or_id: String,
    },
}

/// Runs `mrtd keys`.
pub(crate) fn run(args: KeysArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(keys(args))
}

async fn keys(args: KeysArgs) -> anyhow::Result<ExitCode> {
    let database_url = match args.database_url {
        Some(url) => url,
        None => {
            let dir = args.data_dir.unwrap_or_else(crate::serve_cmd::default_data_dir);
            // The same private directory `mrtd serve` makes: it holds the key hashes.
            crate::serve_cmd::create_private_dir(&dir)
                .with_context(|| format!("creating the data directory {}", dir.display()))?;
            mrtd_store::default_sqlite_url(&dir)
        }
    };
    let store = mrtd_store::open(&database_url).await.context("opening the store")?;
    match args.action {
        KeysAction::Create { name } => {
            if name.trim().is_empty() || name.chars().any(char::is_control) {
                crate::exit::usage!("the key name must be non-empty text");
            }
            let key = generate_api_key();
            let record = match store.create_api_key(&name, &hash_api_key(&key)).await {
                Err(StoreError::Conflict { .. }) => {
                    crate::exit::usage!("a live key named {name:?} already exists; revoke it first")
                }
                other => other.context("creating the key")?,
            };
            eprintln!(
                "Created API key {:?} ({}). It is shown only this once:",
                record.name, record.id
            );
            println!("{key}");
            eprintln!("Send it as `Authorization: Bearer <key>` or `X-Api-Key: <key>`.");
        }
        KeysAction::List => {
            let keys = store.list_api_keys().await.context("listing keys")?;
            if keys.is_empty() {
                eprintln!("no API keys");
            }
            let rows: Vec<String> = keys
                .iter()
                .map(|key| {
                    let created = utc(key.created_at);
                    let state = match key.revoked_at {
                        Some(at) => format!("revoked {}", utc(at)),
                        None => "active".to_owned(),
                    };
                    format!("{}\t{}\tcreated {created}\t{state}", key.id, key.name)
                })
                .collect();
            if !rows.is_empty() {
                crate::output::print_text(&rows.join("\n"))?;
            }
        }
        KeysAction::Revoke { name_or_id } => match store.revoke_api_key(&name_or_id).await {
            Ok(record) => eprintln!("revoked {} ({})", record.name, record.id),
            Err(StoreError::NotFound) => {
                crate::exit::usage!("no live key has the name or id {name_or_id:?}")
            }
            Err(error) => return Err(error).context("revoking the key"),
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// A time as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
fn utc(time: std::time::SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

/// The store as the HTTP front's key lookup.
pub(crate) struct StoreKeys(pub(crate) Arc<dyn Store>);

impl ApiKeyLookup for StoreKeys {
    fn find<'a>(&'a self, hash: &'a str) -> LookupFuture<'a> {
        Box::pin(async move {
            self.0
                .find_api_key_by_hash(hash)
                .await
                // The key's id, never its name: a name can be given to a new key once the
                // old one is revoked, and the old key's scans must not pass to it.
                .map(|found| found.map(|record| record.id))
                .map_err(|e| ApiKeyLookupError(e.to_string()))
        })
    }
}
