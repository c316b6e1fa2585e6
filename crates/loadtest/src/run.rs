//! `mrtd-load run`: N connections for S seconds (or a request budget), mixing
//! `scan_document`, `get_scan` and `tools/list`, with latency, failures and server memory.

use std::{
    collections::BTreeMap,
    fs::File,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use base64::Engine as _;
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::{
    client::{self, Connection, Endpoint, Failure},
    error::LoadError,
    report::{self, Report},
    rss,
};

/// Ids kept for `get_scan`; older ones are replaced at random beyond this.
const ID_POOL_LIMIT: usize = 10_000;
/// Pause after a refused connection, so that a dead server is not hammered in a tight loop.
const RECONNECT_PAUSE: Duration = Duration::from_millis(200);

/// The three kinds of request and how often each is picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mix {
    pub scan: u32,
    pub get: u32,
    pub list: u32,
}

impl Mix {
    /// Parses `scan=1,get=4,list=1`; kinds left out weigh 0.
    pub fn parse(text: &str) -> Result<Mix, LoadError> {
        let invalid = || LoadError::Mix(text.to_owned());
        let mut mix = Mix { scan: 0, get: 0, list: 0 };
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (name, weight) = part.split_once('=').ok_or_else(invalid)?;
            let weight: u32 = weight.trim().parse().map_err(|_| invalid())?;
            match name.trim() {
                "scan" => mix.scan = weight,
                "get" => mix.get = weight,
                "list" => mix.list = weight,
                _ => return Err(invalid()),
            }
        }
        if mix.scan + mix.get + mix.list == 0 {
            return Err(invalid());
        }
        Ok(mix)
    }

    /// The operation a roll in `0..total` stands for.
    fn pick(&self, roll: u32) -> Op {
        if roll < self.scan {
            Op::Scan
        } else if roll < self.scan + self.get {
            Op::Get
        } else {
            Op::List
        }
    }

    fn total(&self) -> u32 {
        self.scan + self.get + self.list
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Scan,
    Get,
    List,
}

impl Op {
    fn method(self) -> &'static str {
        match self {
            Op::Scan => "scan_document",
            Op::Get => "get_scan",
            Op::List => "tools/list",
        }
    }
}

/// Everything a run needs.
pub struct RunConfig {
    pub endpoint: Arc<Endpoint>,
    pub api_key: Option<Arc<str>>,
    pub connections: usize,
    pub duration: Duration,
    pub request_budget: Option<u64>,
    pub images: PathBuf,
    pub mix: Mix,
    pub retain_hours: u32,
    pub timeout: Duration,
    pub ids_out: Option<PathBuf>,
    pub server_pids: Vec<u32>,
    pub rss_interval: Duration,
    pub allowed_errors: Vec<String>,
    pub forbidden_texts: Vec<String>,
}

/// What every worker shares.
struct Shared {
    config: RunConfig,
    /// `tools/call` params of each readable specimen, serialised once.
    images: Vec<String>,
    get_meta: Value,
    list_params: String,
    ids: Mutex<Vec<String>>,
    ids_out: Option<Mutex<BufWriter<File>>>,
    deadline: Instant,
    budget: Option<AtomicU64>,
    done: AtomicU64,
    failed: AtomicU64,
    kept: AtomicU64,
}

/// What one worker saw.
#[derive(Default)]
pub struct Tally {
    /// Latencies of successful requests, microseconds, by method.
    pub latencies: BTreeMap<&'static str, Vec<u64>>,
    /// Failures by (method, kind): count, whether the run allows them, a sample message.
    pub failures: BTreeMap<(String, String), FailureCount>,
    pub ok: u64,
}

#[derive(Debug, Clone, Default)]
pub struct FailureCount {
    pub count: u64,
    pub allowed: u64,
    pub forbidden: u64,
    pub sample: String,
}

impl Tally {
    fn merge(&mut self, other: Tally) {
        self.ok += other.ok;
        for (method, mut samples) in other.latencies {
            self.latencies.entry(method).or_default().append(&mut samples);
        }
        for (key, count) in other.failures {
            let entry = self.failures.entry(key).or_default();
            entry.count += count.count;
            entry.allowed += count.allowed;
            entry.forbidden += count.forbidden;
            if entry.sample.is_empty() {
                entry.sample = count.sample;
            }
        }
    }
}

/// Runs the load and returns its report.
pub async fn run(config: RunConfig) -> Result<Report, LoadError> {
    let images = calibrate(&config).await?;
    let ids_out = match &config.ids_out {
        Some(path) => {
            let file = File::create(path)
                .map_err(|source| LoadError::Write { path: path.clone(), source })?;
            Some(Mutex::new(BufWriter::new(file)))
        }
        None => None,
    };
    let list_params = json!({ "_meta": client::meta(&json!({})) }).to_string();
    let (stop_tx, stop_rx) = watch::channel(false);
    let sampler = (!config.server_pids.is_empty()).then(|| {
        rss::spawn_sampler(config.server_pids.clone(), config.rss_interval, stop_rx.clone())
    });
    let started = Instant::now();
    let shared = Arc::new(Shared {
        budget: config.request_budget.map(AtomicU64::new),
        deadline: started + config.duration,
        get_meta: client::meta(&json!({})),
        list_params,
        images,
        ids: Mutex::new(Vec::new()),
        ids_out,
        done: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        kept: AtomicU64::new(0),
        config,
    });
    let progress = tokio::spawn(progress(shared.clone(), started, stop_rx));
    let workers: Vec<_> = (0..shared.config.connections)
        .map(|index| tokio::spawn(worker(shared.clone(), index as u64)))
        .collect();
    let mut tally = Tally::default();
    for worker in workers {
        if let Ok(one) = worker.await {
            tally.merge(one);
        }
    }
    let elapsed = started.elapsed();
    let _ = stop_tx.send(true);
    let _ = progress.await;
    let memory = match sampler {
        Some(task) => task.await.unwrap_or_default(),
        None => Vec::new(),
    };
    if let Some(out) = &shared.ids_out {
        let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
        let path = shared.config.ids_out.clone().unwrap_or_default();
        out.flush().map_err(|source| LoadError::Write { path, source })?;
    }
    Ok(report::build(&shared.config, tally, elapsed, shared.kept.load(Ordering::Relaxed), memory))
}

/// Scans every image once without keeping it and returns those that read, so that the
/// load only sends photos the server reads (an unreadable one is a tool error by design).
async fn calibrate(config: &RunConfig) -> Result<Vec<String>, LoadError> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(&config.images)
        .map_err(|source| LoadError::Read { path: config.images.clone(), source })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| is_image(path))
        .collect();
    names.sort();
    let mut connection =
        Connection::new(config.endpoint.clone(), config.api_key.clone(), config.timeout);
    let mut readable = Vec::new();
    let mut skipped = Vec::new();
    for path in names {
        let bytes = std::fs::read(&path)
            .map_err(|source| LoadError::Read { path: path.clone(), source })?;
        let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let probe = scan_params(&encoded, 0);
        match connection.request("tools/call", Some("scan_document"), &probe).await {
            Ok(result) if result["isError"] != true => {
                readable.push(scan_params(&encoded, config.retain_hours));
            }
            Ok(result) => {
                let status = result["structuredContent"]["status"].as_str().unwrap_or("error");
                skipped.push(format!("{name} ({status})"));
            }
            Err(Failure { kind, message }) => {
                return Err(LoadError::Calibration { kind, message });
            }
        }
    }
    if readable.is_empty() {
        return Err(LoadError::NoReadableImage(config.images.clone()));
    }
    println!(
        "images: {} of {} read and are used{}",
        readable.len(),
        readable.len() + skipped.len(),
        if skipped.is_empty() {
            String::new()
        } else {
            format!("; skipped {}", skipped.join(", "))
        }
    );
    Ok(readable)
}

fn is_image(path: &Path) -> bool {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    ["jpg", "jpeg", "png", "webp", "tif", "tiff", "bmp"]
        .contains(&extension.to_ascii_lowercase().as_str())
}

fn scan_params(encoded: &str, retain_hours: u32) -> String {
    let mut arguments = json!({ "image_base64": encoded });
    if retain_hours > 0 {
        arguments["retain_hours"] = json!(retain_hours);
    }
    client::tool_params("scan_document", arguments, &json!({})).to_string()
}

/// A small xorshift generator: the mix needs spread, not cryptographic randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

async fn worker(shared: Arc<Shared>, index: u64) -> Tally {
    let config = &shared.config;
    let mut connection =
        Connection::new(config.endpoint.clone(), config.api_key.clone(), config.timeout);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (index + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut tally = Tally::default();
    while Instant::now() < shared.deadline && take_from_budget(&shared) {
        let mut op = config.mix.pick(rng.below(config.mix.total() as usize) as u32);
        let id = if op == Op::Get { random_id(&shared, &mut rng) } else { None };
        if op == Op::Get && id.is_none() {
            // Nothing kept yet to read back: make something to read.
            op = if config.mix.scan > 0 { Op::Scan } else { Op::List };
        }
        let started = Instant::now();
        let outcome = match op {
            Op::Scan => {
                let image = &shared.images[rng.below(shared.images.len())];
                connection.call_tool("scan_document", image).await
            }
            Op::Get => {
                let params = json!({
                    "_meta": shared.get_meta,
                    "name": "get_scan",
                    "arguments": { "scan_id": id },
                })
                .to_string();
                connection.call_tool("get_scan", &params).await
            }
            Op::List => connection.request("tools/list", None, &shared.list_params).await,
        };
        let micros = started.elapsed().as_micros() as u64;
        shared.done.fetch_add(1, Ordering::Relaxed);
        match outcome {
            Ok(result) => {
                tally.ok += 1;
                tally.latencies.entry(op.method()).or_default().push(micros);
                if op == Op::Scan
                    && let Some(id) = result["structuredContent"]["scan_id"].as_str()
                {
                    keep_id(&shared, id, &mut rng);
                }
            }
            Err(failure) => {
                shared.failed.fetch_add(1, Ordering::Relaxed);
                let refused = failure.kind == "connect";
                record_failure(&mut tally, config, op, failure);
                if refused {
                    tokio::time::sleep(RECONNECT_PAUSE).await;
                }
            }
        }
    }
    tally
}

fn take_from_budget(shared: &Shared) -> bool {
    match &shared.budget {
        None => true,
        Some(left) => {
            left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_ok()
        }
    }
}

fn random_id(shared: &Shared, rng: &mut Rng) -> Option<String> {
    let ids = shared.ids.lock().unwrap_or_else(|e| e.into_inner());
    (!ids.is_empty()).then(|| ids[rng.below(ids.len())].clone())
}

/// Remembers an acknowledged scan for `get_scan` and writes it to the ids file at once,
/// flushed, so that the file holds every acknowledged id even if the run is cut short.
fn keep_id(shared: &Shared, id: &str, rng: &mut Rng) {
    shared.kept.fetch_add(1, Ordering::Relaxed);
    {
        let mut ids = shared.ids.lock().unwrap_or_else(|e| e.into_inner());
        if ids.len() < ID_POOL_LIMIT {
            ids.push(id.to_owned());
        } else {
            let slot = rng.below(ids.len());
            ids[slot] = id.to_owned();
        }
    }
    if let Some(out) = &shared.ids_out {
        let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
        // A write error shows up when the file is flushed at the end of the run.
        let _ = writeln!(out, "{id}").and_then(|()| out.flush());
    }
}

fn record_failure(tally: &mut Tally, config: &RunConfig, op: Op, failure: Failure) {
    let entry = tally.failures.entry((op.method().to_owned(), failure.kind)).or_default();
    entry.count += 1;
    if config.forbidden_texts.iter().any(|text| failure.message.contains(text.as_str())) {
        entry.forbidden += 1;
    } else if config.allowed_errors.iter().any(|text| failure.message.contains(text.as_str())) {
        entry.allowed += 1;
    }
    if entry.sample.is_empty() {
        entry.sample = failure.message;
    }
}

/// Prints a line to stderr every ten seconds so a long run shows it is alive.
async fn progress(shared: Arc<Shared>, started: Instant, mut stop: watch::Receiver<bool>) {
    let mut ticker = tokio::time::interval(Duration::from_secs(10));
    ticker.tick().await;
    loop {
        tokio::select! {
            _ = ticker.tick() => {}
            _ = stop.changed() => return,
        }
        eprintln!(
            "mrtd-load: {:>4.0} s, {} requests, {} failed, {} scans kept",
            started.elapsed().as_secs_f64(),
            shared.done.load(Ordering::Relaxed),
            shared.failed.load(Ordering::Relaxed),
            shared.kept.load(Ordering::Relaxed),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_parse_and_pick_by_weight() {
        let mix = Mix::parse("scan=1,get=4,list=1").unwrap();
        assert_eq!(mix, Mix { scan: 1, get: 4, list: 1 });
        let picks: Vec<Op> = (0..mix.total()).map(|roll| mix.pick(roll)).collect();
        assert_eq!(picks, [Op::Scan, Op::Get, Op::Get, Op::Get, Op::Get, Op::List]);
        assert_eq!(Mix::parse("scan=1").unwrap(), Mix { scan: 1, get: 0, list: 0 });
        for bad in ["", "scan=0", "scan", "scan=x", "put=1"] {
            assert!(Mix::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_generator_spreads_over_its_range() {
        let mut rng = Rng(7);
        let mut seen = [0u32; 6];
        for _ in 0..6000 {
            seen[rng.below(6)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }
}
