//! `mrtd-load`: drives an mrtd server with a bounded mix of MCP 2026-07-28 requests.
//!
//! - `run`: N connections for S seconds (or a request budget) mixing `scan_document` on
//!   real images, `get_scan` on ids it received and `tools/list`; reports failures by kind,
//!   p50/p90/p99 per method, throughput and the server's memory over time.
//! - `verify`: every scan id in a file (written by `run --ids-out`) is still readable.
//! - `handoff`: a scan and an `input_required` round trip move between two replicas.
//! - `uploads`: N large uploads at once, round after round; reports how they were answered,
//!   `tools/list` latency meanwhile and the server's peak memory.
//! - `hardening`: the scenarios of the hardening round, each bounded (`hardening.rs`).
//!
//! Exit status: 0 when every expectation holds, 1 when one is broken, 2 on a setup error.

mod client;
mod error;
mod handoff;
mod hardening;
mod png;
mod report;
mod rss;
mod run;
mod stats;
mod uploads;
mod verify;

use std::{path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use clap::{Args, Parser, Subcommand};

use crate::{client::Endpoint, error::LoadError, report::Expectations, run::Mix};

#[derive(Debug, Parser)]
#[command(name = "mrtd-load", version, about = "Load, soak and fault driver for an mrtd server")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Send a mix of requests over N connections for S seconds.
    Run(RunArgs),
    /// Check that every scan id in a file is still readable through get_scan.
    Verify(VerifyArgs),
    /// Make a scan on one replica, read and delete it on the other, and finish an
    /// input_required round trip on the other.
    Handoff(HandoffArgs),
    /// Send N large scan_document uploads at once, round after round, while measuring
    /// tools/list latency and the server's peak memory.
    Uploads(UploadArgs),
    /// Run the hardening scenarios asked for, each bounded in requests and seconds:
    /// failed logins behind a trusted proxy, stalled image_url fetches, concurrent reads of
    /// a large resource, clients that never read.
    Hardening(HardeningArgs),
}

#[derive(Debug, Args)]
struct HardeningArgs {
    #[command(flatten)]
    common: Common,
    /// The server's pid, for its memory and open sockets.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Seconds of bad keys beside valid ones behind a proxy (0 skips it; the server needs
    /// --auth api-key, --api-key here, and --trusted-proxy 127.0.0.1/32).
    #[arg(long, default_value_t = 0.0)]
    throttle_secs: f64,
    /// image_url calls to a server that never answers, beside another photo (0 skips it;
    /// the server needs --image-url-allow-http --image-url-allow-network 127.0.0.1/32).
    #[arg(long, default_value_t = 0)]
    slow_urls: usize,
    /// The photo read beside the stalled fetches.
    #[arg(long, default_value = "tests/data/images/100_pass-uto.jpg")]
    image: PathBuf,
    /// The URI of a large file in the server's image directory (mrtd://images/NAME).
    #[arg(long)]
    resource: Option<String>,
    /// Reads of --resource at once while tools/list is probed (0 skips it).
    #[arg(long, default_value_t = 0)]
    resource_reads: usize,
    /// Clients that ask for --never-read-resource (else --resource) and never read (0 skips
    /// it).
    #[arg(long, default_value_t = 0)]
    never_read: usize,
    /// The URI the clients that never read ask for.
    #[arg(long)]
    never_read_resource: Option<String>,
    /// Seconds within which the server must have closed the clients that never read.
    #[arg(long, default_value_t = 40.0)]
    never_read_within_secs: f64,
    /// Fail when, once they are closed, the server's memory is over this many MiB above
    /// what it was before the clients that never read.
    #[arg(long)]
    never_read_max_kept_mib: Option<u64>,
    /// Fail when the server's peak memory during the reads is over this many MiB.
    #[arg(long)]
    max_peak_rss_mib: Option<u64>,
    /// Fail when the tools/list p99 during the reads is over this many milliseconds.
    #[arg(long)]
    max_list_p99_ms: Option<f64>,
}

#[derive(Debug, Args)]
struct UploadArgs {
    #[command(flatten)]
    common: Common,
    /// Uploads sent at once.
    #[arg(long, default_value_t = 64)]
    uploads: usize,
    /// Size of each upload in MiB.
    #[arg(long, default_value_t = 35)]
    mib: usize,
    /// How many times the uploads are sent together.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Milliseconds between tools/list probes.
    #[arg(long, default_value_t = 20)]
    probe_interval_ms: u64,
    /// The server's pid, for its peak memory.
    #[arg(long)]
    server_pid: Option<u32>,
    /// Fail when the server's peak memory is over this many MiB.
    #[arg(long)]
    max_peak_rss_mib: Option<u64>,
    /// Fail when the tools/list p99 is over this many milliseconds.
    #[arg(long)]
    max_list_p99_ms: Option<f64>,
}

#[derive(Debug, Args)]
struct Common {
    /// The MCP endpoint, e.g. http://127.0.0.1:8080/mcp.
    #[arg(long)]
    url: String,
    /// An API key sent as X-Api-Key (for servers with --auth api-key).
    #[arg(long, env = "MRTD_LOAD_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// Seconds any one request may take before it counts as a timeout.
    #[arg(long, default_value_t = 120.0)]
    timeout_secs: f64,
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    common: Common,
    /// Concurrent connections, each sending one request at a time.
    #[arg(short, long, default_value_t = 64)]
    connections: usize,
    /// How long to run, in seconds.
    #[arg(short, long, default_value_t = 60.0)]
    duration_secs: f64,
    /// Stop after this many requests, even before the duration is over.
    #[arg(long)]
    requests: Option<u64>,
    /// Directory of specimen images; those the server reads are used.
    #[arg(long, default_value = "tests/data/images")]
    images: PathBuf,
    /// Relative weights of scan_document, get_scan and tools/list.
    #[arg(long, default_value = "scan=1,get=4,list=1")]
    mix: String,
    /// retain_hours of every scan_document (0 keeps nothing and leaves get_scan unused).
    #[arg(long, default_value_t = 1)]
    retain_hours: u32,
    /// Append every acknowledged scan id to this file as soon as it is acknowledged.
    #[arg(long)]
    ids_out: Option<PathBuf>,
    /// Sample this process's VmRSS during the run (repeatable).
    #[arg(long = "server-pid")]
    server_pids: Vec<u32>,
    /// Milliseconds between memory samples.
    #[arg(long, default_value_t = 1000)]
    rss_interval_ms: u64,
    /// Fail the run unless every sampled server's memory stays flat (the last quarter's
    /// median at most 10 % above the second quarter's).
    #[arg(long)]
    expect_flat_memory: bool,
    /// Failures tolerated beyond those matching --allow-error.
    #[arg(long, default_value_t = 0)]
    max_failures: u64,
    /// Tolerate any number of failures (for a run during which the server is killed).
    #[arg(long)]
    allow_failures: bool,
    /// A failure whose message contains this text is expected (repeatable).
    #[arg(long = "allow-error")]
    allowed_errors: Vec<String>,
    /// A failure whose message contains this text breaks the run whatever else is allowed,
    /// e.g. backend internals that must not reach clients (repeatable).
    #[arg(long = "forbid-text")]
    forbidden_texts: Vec<String>,
    /// Fail the run unless at least one request failed (the run covers an outage).
    #[arg(long)]
    expect_failures: bool,
}

#[derive(Debug, Args)]
struct VerifyArgs {
    #[command(flatten)]
    common: Common,
    /// The file of scan ids, one per line.
    #[arg(long)]
    ids: PathBuf,
    /// Concurrent connections.
    #[arg(short, long, default_value_t = 8)]
    connections: usize,
}

#[derive(Debug, Args)]
struct HandoffArgs {
    /// The first replica's MCP endpoint.
    #[arg(long)]
    first: String,
    /// The second replica's MCP endpoint.
    #[arg(long)]
    second: String,
    /// A proxy in front of both (e.g. nginx); the same checks run through it as well.
    #[arg(long)]
    via: Option<String>,
    /// A photo the server reads.
    #[arg(long, default_value = "tests/data/images/100_pass-uto.jpg")]
    image: PathBuf,
    /// Seconds any one request may take.
    #[arg(long, default_value_t = 60.0)]
    timeout_secs: f64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mrtd-load: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(dispatch(cli.command)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprint!("mrtd-load: {error}");
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                eprint!(": {cause}");
                source = cause.source();
            }
            eprintln!();
            ExitCode::from(2)
        }
    }
}

fn seconds(value: f64) -> Duration {
    Duration::from_secs_f64(value.max(0.001))
}

/// Runs a subcommand; `Ok(false)` when it ran but an expectation was broken.
async fn dispatch(command: Command) -> Result<bool, LoadError> {
    match command {
        Command::Hardening(args) => {
            let target = hardening::Target {
                endpoint: Arc::new(Endpoint::parse(&args.common.url)?),
                api_key: args.common.api_key.map(Arc::from),
                timeout: seconds(args.common.timeout_secs),
                server_pid: args.server_pid,
            };
            let mut broken = Vec::new();
            if args.throttle_secs > 0.0 {
                broken.extend(hardening::throttle(&target, args.throttle_secs).await);
            }
            if args.slow_urls > 0 {
                let photo = std::fs::read(&args.image)
                    .map_err(|source| LoadError::Read { path: args.image.clone(), source })?;
                broken.extend(hardening::slow_url(&target, &photo, args.slow_urls).await);
            }
            if let Some(uri) = &args.resource
                && args.resource_reads > 0
            {
                let reads = hardening::resource_reads(
                    &target,
                    uri,
                    args.resource_reads,
                    args.max_peak_rss_mib,
                    args.max_list_p99_ms,
                );
                broken.extend(reads.await);
            }
            if let Some(uri) = args.never_read_resource.as_ref().or(args.resource.as_ref())
                && args.never_read > 0
            {
                let within = seconds(args.never_read_within_secs);
                let kept = args.never_read_max_kept_mib;
                let never_read = hardening::never_read(&target, uri, args.never_read, within, kept);
                broken.extend(never_read.await);
            }
            for sentence in &broken {
                println!("VIOLATION: {sentence}");
            }
            Ok(broken.is_empty())
        }
        Command::Uploads(args) => {
            let config = uploads::UploadConfig {
                endpoint: Arc::new(Endpoint::parse(&args.common.url)?),
                api_key: args.common.api_key.map(Arc::from),
                uploads: args.uploads,
                mib: args.mib,
                rounds: args.rounds,
                probe_interval: Duration::from_millis(args.probe_interval_ms.max(1)),
                timeout: seconds(args.common.timeout_secs),
                server_pid: args.server_pid,
            };
            let report = uploads::run(config).await;
            report.print(args.uploads, args.mib);
            let broken = report.violations(args.max_peak_rss_mib, args.max_list_p99_ms);
            for sentence in &broken {
                println!("VIOLATION: {sentence}");
            }
            Ok(broken.is_empty())
        }
        Command::Run(args) => {
            let config = run::RunConfig {
                endpoint: Arc::new(Endpoint::parse(&args.common.url)?),
                api_key: args.common.api_key.map(Arc::from),
                connections: args.connections.max(1),
                duration: seconds(args.duration_secs),
                request_budget: args.requests,
                images: args.images,
                mix: Mix::parse(&args.mix)?,
                retain_hours: args.retain_hours,
                timeout: seconds(args.common.timeout_secs),
                ids_out: args.ids_out,
                server_pids: args.server_pids,
                rss_interval: Duration::from_millis(args.rss_interval_ms.max(10)),
                allowed_errors: args.allowed_errors,
                forbidden_texts: args.forbidden_texts,
            };
            let report = run::run(config).await?;
            report.print(args.expect_flat_memory);
            let expectations = Expectations {
                max_failures: if args.allow_failures { u64::MAX } else { args.max_failures },
                expect_failures: args.expect_failures,
                expect_flat_memory: args.expect_flat_memory,
            };
            let broken = report.violations(&expectations);
            for sentence in &broken {
                println!("VIOLATION: {sentence}");
            }
            Ok(broken.is_empty())
        }
        Command::Verify(args) => {
            let endpoint = Arc::new(Endpoint::parse(&args.common.url)?);
            let outcome = verify::verify(
                endpoint,
                args.common.api_key.map(Arc::from),
                &args.ids,
                args.connections,
                seconds(args.common.timeout_secs),
            )
            .await?;
            outcome.print(&args.ids);
            Ok(outcome.passed())
        }
        Command::Handoff(args) => {
            let first = Arc::new(Endpoint::parse(&args.first)?);
            let second = Arc::new(Endpoint::parse(&args.second)?);
            let timeout = seconds(args.timeout_secs);
            let mut passed = 0;
            let mut failed = 0;
            let mut pairs = vec![
                ("replica A", first.clone(), "replica B", second.clone()),
                ("replica B", second, "replica A", first),
            ];
            if let Some(via) = &args.via {
                let proxy = Arc::new(Endpoint::parse(via)?);
                pairs.push(("proxy", proxy.clone(), "proxy", proxy));
            }
            for (name_a, a, name_b, b) in pairs {
                println!("hand-off from {name_a} to {name_b}:");
                let checks =
                    handoff::handoff(&a, &b, (name_a, name_b), &args.image, timeout).await?;
                passed += checks.passed;
                failed += checks.failed;
            }
            println!("RESULT handoff_checks={} passed={passed} failed={failed}", passed + failed);
            Ok(failed == 0)
        }
    }
}
