//! `mrtd serve`: the MCP server over Streamable HTTP (default) or stdio.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::Arc,
    time::Duration,
};

use anyhow::Context;
use axum::Router;
use mrtd_mcp::{McpConfig, MrtdServer};
use mrtd_server::{
    ConnectionLimits, HttpConfig, McpEndpoint,
    auth::{
        Admission, AuthGuard, AuthMode, AuthSettings, OAuthConfig, Prefetcher, RateLimit,
        TokenVerifier, jwks::JwksSource,
    },
    observe::{Observability, Readiness},
};
use mrtd_service::{AppState, ServiceConfig};
use mrtd_web::WebConfig;

use crate::{
    compose, connect,
    exit::{CliError, usage},
    keys_cmd::StoreKeys,
};

/// The text `mrtd serve --help` ends with.
pub(crate) const SERVE_HELP: &str = "\
Configuration file:
  --config PATH (or MRTD_CONFIG), else $XDG_CONFIG_HOME/mrtd/config.toml or
  ~/.config/mrtd/config.toml when it exists. TOML whose keys are the flags'
  names with underscores (the MRTD_* variable without its prefix, lower case):
    listen = \"127.0.0.1:8080\"
    data_dir = \"/var/lib/mrtd\"
    allowed_origins = [\"https://app.example.com\"]
    legacy_sessions = true
    log_format = \"json\"
  Precedence: flags, then MRTD_* environment variables, then the file, then
  the defaults.

Exit status: 0 after a clean shutdown, 2 for invalid flags, variables or
configuration, 4 when the server cannot start or fails.";

/// How HTTP callers authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum AuthKind {
    /// No authentication; only allowed on loopback addresses.
    None,
    /// API keys made with `mrtd keys create`.
    ApiKey,
    /// OAuth 2.1 bearer tokens (JWTs) from one issuer.
    Oauth,
}

/// Arguments of `mrtd serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Configuration file (TOML; keys are the flags' names, see below).
    #[arg(long, env = "MRTD_CONFIG", value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,
    /// Serve MCP over stdin/stdout instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// Address to listen on (HTTP).
    #[arg(long, env = "MRTD_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Directory for the embedded database and the request-state key.
    #[arg(long, env = "MRTD_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// Directory whose files `image_path` may name; without it `image_path` is disabled.
    #[arg(long, env = "MRTD_IMAGE_DIR")]
    image_dir: Option<PathBuf>,
    /// Folder of CSCA certificates (PEM or DER), CSCA master lists and CRLs that `verify_chip`
    /// trusts; without it chip verification reports `no_trust_anchor`.
    #[arg(long, env = "MRTD_CSCA_DIR", value_name = "DIR")]
    csca_dir: Option<PathBuf>,
    /// Turn off `image_url` (photos the server fetches by URL).
    #[arg(long, env = "MRTD_NO_IMAGE_URL")]
    no_image_url: bool,
    /// Host `image_url` may fetch from (repeatable; `*.example.com` for its subdomains).
    /// Without it, any host whose addresses are all public.
    #[arg(long = "image-url-host", env = "MRTD_IMAGE_URL_HOSTS", value_delimiter = ',')]
    image_url_hosts: Vec<String>,
    /// Network (CIDR, such as 10.20.0.0/16) whose private addresses `image_url` may reach
    /// (repeatable): an internal photo store. Private, loopback, link-local and reserved
    /// addresses are refused otherwise.
    #[arg(
        long = "image-url-allow-network",
        env = "MRTD_IMAGE_URL_ALLOW_NETWORKS",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    image_url_allow_networks: Vec<mrtd_fetch::IpNet>,
    /// Let `image_url` use plain http (https only otherwise).
    #[arg(long, env = "MRTD_IMAGE_URL_ALLOW_HTTP")]
    image_url_allow_http: bool,
    /// Database URL: `sqlite://PATH` (default: under the data directory) or `postgres://...`.
    #[arg(long, env = "MRTD_DATABASE_URL")]
    database_url: Option<String>,
    /// Browser origin allowed to call the server besides its own (repeatable; `*` for any).
    #[arg(long = "allowed-origin", env = "MRTD_ALLOWED_ORIGINS", value_delimiter = ',')]
    allowed_origins: Vec<String>,
    /// Host name accepted in the Host header besides loopback names (repeatable).
    #[arg(long = "allowed-host", env = "MRTD_ALLOWED_HOSTS", value_delimiter = ',')]
    allowed_hosts: Vec<String>,
    /// Largest request body in MiB.
    #[arg(long, env = "MRTD_MAX_BODY_MIB", default_value_t = 36)]
    max_body_mib: usize,
    /// Serve 2025-era clients with sessions (enables elicitation for them, ties them to one
    /// replica). 2026-07-28 traffic is stateless either way.
    #[arg(long, env = "MRTD_LEGACY_SESSIONS")]
    legacy_sessions: bool,
    /// Hex key (at least 32 bytes) sealing requestState; replicas must share it. Prefer
    /// MRTD_REQUEST_STATE_KEY or --request-state-key-file: a flag's value is visible to
    /// every local user in the process list, and the server warns at start when it is given
    /// here. Default: a key generated once and kept in the data directory.
    #[arg(long, env = "MRTD_REQUEST_STATE_KEY", hide_env_values = true)]
    request_state_key: Option<String>,
    /// Whether `--request-state-key` itself was on the command line (not the variable, not
    /// the configuration file), read from the command line alone before the file is merged in.
    #[arg(skip)]
    pub(crate) request_state_key_in_argv: bool,
    /// File holding the hex request-state key (a mounted secret, say).
    #[arg(
        long,
        env = "MRTD_REQUEST_STATE_KEY_FILE",
        value_name = "PATH",
        conflicts_with = "request_state_key"
    )]
    request_state_key_file: Option<PathBuf>,
    /// How HTTP callers authenticate.
    #[arg(long, env = "MRTD_AUTH", value_enum, default_value = "none")]
    auth: AuthKind,
    /// Allow `--auth none` on a non-loopback address (anyone who can reach it can use it).
    #[arg(long, env = "MRTD_INSECURE_NO_AUTH")]
    insecure_no_auth: bool,
    /// The canonical URL clients use for the MCP endpoint (`https://mrtd.example.com/mcp`):
    /// the OAuth resource and token audience. Its host is accepted in the Host header.
    #[arg(long, env = "MRTD_PUBLIC_URL")]
    public_url: Option<String>,
    /// The OAuth authorization server's issuer identifier (exact `iss` of its tokens).
    #[arg(long, env = "MRTD_OAUTH_ISSUER")]
    oauth_issuer: Option<String>,
    /// The issuer's JSON Web Key Set: a file path or an https URL.
    #[arg(long, env = "MRTD_OAUTH_JWKS")]
    oauth_jwks: Option<String>,
    /// Accept access tokens whose header lacks `typ: at+jwt` (RFC 9068), for issuers that
    /// omit it. Off by default: without it an ID token could pass for an access token.
    #[arg(long, env = "MRTD_OAUTH_ACCEPT_UNTYPED")]
    oauth_accept_untyped: bool,
    /// Allow the JWKS URL to resolve to private, loopback or link-local addresses (and to
    /// use plain http), for an issuer inside the same network.
    #[arg(long, env = "MRTD_OAUTH_JWKS_ALLOW_PRIVATE")]
    oauth_jwks_allow_private: bool,
    /// Requests per second each caller may make (0: no limit).
    #[arg(long, env = "MRTD_RATE_LIMIT", default_value_t = 10.0)]
    rate_limit: f64,
    /// Requests each caller may make in a burst.
    #[arg(long, env = "MRTD_RATE_BURST", default_value_t = 50)]
    rate_burst: u32,
    /// Recognitions that may run at once across all callers and doors, stdio included
    /// (default: the number of CPUs); further ones wait their caller's turn.
    #[arg(long, env = "MRTD_MAX_CONCURRENT_SCANS")]
    max_concurrent_scans: Option<usize>,
    /// Seconds a recognition waits for a free slot (and a body for room in the memory
    /// budget) before it is refused as busy (503 over HTTP, a tool error over stdio).
    #[arg(long, env = "MRTD_SCAN_WAIT_SECS", default_value_t = 10)]
    scan_wait_secs: u64,
    /// Failed authentications a client address may make at once before it is refused
    /// (429) for a while; it earns one more every two seconds (0: no limit).
    #[arg(long, env = "MRTD_AUTH_FAILURE_BURST", default_value_t = 20)]
    auth_failure_burst: u32,
    /// Seconds for a request's head to arrive; also how long an idle kept-alive connection
    /// stays open.
    #[arg(long, env = "MRTD_HEADER_TIMEOUT_SECS", default_value_t = 15)]
    header_timeout_secs: u64,
    /// Largest request head (request line and headers) in KiB; a larger one gets 431.
    #[arg(long, env = "MRTD_MAX_HEADER_KIB", default_value_t = 32)]
    max_header_kib: usize,
    /// Longest pause in seconds between two pieces of a request body.
    #[arg(long, env = "MRTD_BODY_IDLE_TIMEOUT_SECS", default_value_t = 15)]
    body_idle_timeout_secs: u64,
    /// Seconds for a whole request body to arrive.
    #[arg(long, env = "MRTD_BODY_TIMEOUT_SECS", default_value_t = 120)]
    body_timeout_secs: u64,
    /// Seconds from a request's head to its response's head (408 after that).
    #[arg(long, env = "MRTD_REQUEST_TIMEOUT_SECS", default_value_t = 180)]
    request_timeout_secs: u64,
    /// Seconds a response may wait for the client to read more of it before the
    /// connection is closed (a client that never reads cannot hold it or its memory).
    #[arg(long, env = "MRTD_RESPONSE_TIMEOUT_SECS", default_value_t = 30)]
    response_timeout_secs: u64,
    /// Connections open at once (lowered to fit the file descriptor limit).
    #[arg(long, env = "MRTD_MAX_CONNECTIONS", default_value_t = 1024)]
    max_connections: usize,
    /// Connections one client address (an IPv6 address's /64) may hold open at once;
    /// further ones are closed at once (0: no cap, e.g. behind a proxy, whose connections
    /// all come from one address).
    #[arg(long, env = "MRTD_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 64)]
    max_connections_per_address: usize,
    /// Network (CIDR) of a reverse proxy whose X-Forwarded-For or Forwarded header names
    /// the client (repeatable): the failed-login throttle and the access log then count
    /// the address it reports (the rightmost hop outside these networks), and its own
    /// connections are not held to --max-connections-per-address. From any other peer the
    /// headers are ignored.
    #[arg(
        long = "trusted-proxy",
        env = "MRTD_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR"
    )]
    trusted_proxies: Vec<mrtd_fetch::IpNet>,
    /// MiB that answers built from files (resources/read of a photo: file, base64 and
    /// message, about three times the file) may hold at once, each until its response is
    /// written; a read that finds no room waits --scan-wait-secs (at most
    /// --response-timeout-secs), then gets 503 with Retry-After.
    #[arg(long, env = "MRTD_MAX_ANSWER_MEMORY_MIB", default_value_t = 192)]
    max_answer_memory_mib: usize,
    /// Megapixels the recognitions running may hold decoded at once (each takes what its
    /// photo's header declares, at most the 40 MP limit, before decoding; one that finds
    /// no room waits --scan-wait-secs, then gets 503 or a busy tool error).
    #[arg(long, env = "MRTD_MAX_DECODED_MEGAPIXELS", default_value_t = 80)]
    max_decoded_megapixels: u64,
    /// MiB of request bodies held in memory at once across all requests (503 beyond).
    #[arg(long, env = "MRTD_MAX_BODY_MEMORY_MIB", default_value_t = 256)]
    max_body_memory_mib: usize,
}

/// Runs `mrtd serve`.
pub(crate) fn run(args: ServeArgs, json_logs: bool) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(serve(args, json_logs))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the server until it is told to stop: over stdio, or over HTTP on `--listen`.
async fn serve(args: ServeArgs, json_logs: bool) -> anyhow::Result<()> {
    check_exposure(&args)?;
    let service = open_service(&args).await?;
    let shutdown = tokio_util_shutdown();
    let sweeper =
        mrtd_store::spawn_sweeper(service.store.clone(), Duration::from_secs(60), shutdown.clone());

    if args.stdio {
        tracing::info!("serving MCP over stdio");
        mrtd_server::stdio::serve(service.server, tokio::io::stdin(), tokio::io::stdout()).await?;
    } else {
        serve_http(&args, service, &shutdown, json_logs).await?;
    }
    shutdown.cancel();
    let _ = sweeper.await;
    Ok(())
}

/// Logs the configuration file read and refuses settings that would expose documents: a
/// request-state key on the command line is warned about, no authentication off loopback
/// and the origin `*` without authentication are usage errors.
fn check_exposure(args: &ServeArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.config {
        tracing::info!(path = %path.display(), "read the configuration file");
    }
    if args.request_state_key_in_argv {
        tracing::warn!(
            "--request-state-key was given on the command line, where every local user can \
             read it (the process list, /proc/PID/cmdline); give the key in the \
             MRTD_REQUEST_STATE_KEY environment variable, the configuration file's \
             request_state_key or --request-state-key-file instead"
        );
    }
    if !args.stdio
        && args.auth == AuthKind::None
        && !args.listen.ip().is_loopback()
        && !args.insecure_no_auth
    {
        usage!(
            "refusing to listen on {} without authentication: anyone who can reach this address \
             could read documents and kept scans. Use --auth api-key (keys from `mrtd keys \
             create NAME`) or --auth oauth, listen on 127.0.0.1, or pass --insecure-no-auth if \
             something in front of this server already authenticates callers",
            args.listen
        );
    }
    if !args.stdio
        && args.auth == AuthKind::None
        && args.allowed_origins.iter().any(|origin| origin.trim() == "*")
    {
        usage!(
            "--allowed-origin '*' lets every web page a user visits call this server; it is \
             refused without authentication. Name the origins, or use --auth api-key or \
             --auth oauth"
        );
    }
    Ok(())
}

/// What both transports serve: the scan store, the tools' shared state and the MCP server,
/// with the image fetcher and the trust store's problems the HTTP front needs too.
struct Service {
    store: Arc<dyn mrtd_store::Store>,
    state: AppState,
    server: MrtdServer,
    image_urls: Option<Arc<dyn mrtd_service::ImageFetch>>,
    trust_problems: Vec<mrtd_chip::TrustProblem>,
}

/// Opens the data directory and the scan store, reads the request-state key and builds the
/// engine, the trust store, the budgets and the MCP server on them.
async fn open_service(args: &ServeArgs) -> anyhow::Result<Service> {
    let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
    create_private_dir(&data_dir)
        .with_context(|| format!("creating the data directory {}", data_dir.display()))?;
    let database_url =
        args.database_url.clone().unwrap_or_else(|| mrtd_store::default_sqlite_url(&data_dir));
    let store = mrtd_store::open(&database_url).await.context("opening the scan store")?;
    log_effective_configuration(args, &database_url);
    let given_key = match &args.request_state_key_file {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|error| {
            CliError::Usage(format!(
                "cannot read --request-state-key-file {}: {error}",
                path.display()
            ))
        })?),
        None => args.request_state_key.clone(),
    };
    let key = request_state_key(given_key.as_deref(), &data_dir)?;
    let defaults = ServiceConfig::new();
    let config = ServiceConfig {
        image_dir: args.image_dir.clone(),
        max_concurrent_reads: args
            .max_concurrent_scans
            .map_or(defaults.max_concurrent_reads, |slots| slots.max(1)),
        read_wait: Duration::from_secs(args.scan_wait_secs),
    };
    let engine = Arc::new(mrtd_engine::EngineBuilder::new().build());
    let trust = trust_store(args.csca_dir.as_deref())?;
    let trust_problems = trust.problems().to_vec();
    // An answer waits for room no longer than one response timeout: the answers it waits
    // on are taken within moments by clients that read, so a longer wait is a wait on
    // clients that do not, which are closed only after that timeout; waiting on, a group of
    // them would be answered, and closed, one budget's worth after another. A reader that
    // is refused retries (503 with Retry-After) rather than keep its connection waiting.
    let answers = mrtd_service::AnswerBudget::new(
        args.max_answer_memory_mib.max(1).saturating_mul(1024 * 1024),
        Duration::from_secs(args.scan_wait_secs.min(args.response_timeout_secs.max(1))),
    );
    let mut state = AppState::new(engine, store.clone(), &config)?
        .with_trust_store(trust)
        .with_answer_budget(answers)
        .with_pixel_budget(mrtd_service::budget::PixelBudget::new(
            args.max_decoded_megapixels.max(1).saturating_mul(1_000_000),
            Duration::from_secs(args.scan_wait_secs),
        ));
    let image_urls = if args.no_image_url { None } else { Some(image_fetcher(args)?) };
    if let Some(fetcher) = &image_urls {
        state = state.with_image_fetcher(fetcher.clone());
    }
    let server = MrtdServer::new(state.clone(), &McpConfig { request_state_key: key })?
        .with_tool_spans(compose::tool_spans());
    Ok(Service { store, state, server, image_urls, trust_problems })
}

/// Logs the settings the server runs with, once at start, flags, file and defaults merged:
/// what an operator checks first when the server does not behave as configured. No secret
/// and no database URL (it may hold a password); of paths, only whether one is set.
fn log_effective_configuration(args: &ServeArgs, database_url: &str) {
    let store = if database_url.starts_with("postgres") { "postgresql" } else { "sqlite" };
    tracing::info!(
        transport = if args.stdio { "stdio" } else { "http" },
        store,
        auth = ?args.auth,
        legacy_sessions = args.legacy_sessions,
        image_url = !args.no_image_url,
        image_dir = args.image_dir.is_some(),
        chip_trust_dir = args.csca_dir.is_some(),
        max_body_mib = args.max_body_mib,
        max_decoded_megapixels = args.max_decoded_megapixels,
        max_answer_memory_mib = args.max_answer_memory_mib,
        max_concurrent_scans = ?args.max_concurrent_scans,
        rate_limit = args.rate_limit,
        rate_burst = args.rate_burst,
        max_connections = args.max_connections,
        request_timeout_secs = args.request_timeout_secs,
        response_timeout_secs = args.response_timeout_secs,
        "effective configuration"
    );
}

/// Serves MCP, the page and the REST API over HTTP until `shutdown` is cancelled.
async fn serve_http(
    args: &ServeArgs,
    service: Service,
    shutdown: &tokio_util::sync::CancellationToken,
    json_logs: bool,
) -> anyhow::Result<()> {
    let http = http_config(args)?;
    let app = http_app(args, service, &http).await?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let address = listener.local_addr()?;
    warn_without_auth(args);
    connect::announce(
        &connect::Endpoint {
            address,
            public_url: args.public_url.as_deref(),
            allowed_host: args.allowed_hosts.first().map(String::as_str),
            needs_credentials: args.auth != AuthKind::None,
        },
        json_logs,
    );
    let signal = shutdown.clone();
    let limits = http.limits.clone();
    mrtd_server::http::serve_with(listener, app, &limits, async move { signal.cancelled().await })
        .await
        .context("serving HTTP")?;
    Ok(())
}

/// The HTTP front's settings from the flags; listening off loopback needs the host names
/// clients use (`--allowed-host` or `--public-url`).
fn http_config(args: &ServeArgs) -> anyhow::Result<HttpConfig> {
    let mut http = HttpConfig {
        legacy_sessions: args.legacy_sessions,
        max_body_bytes: args.max_body_mib.saturating_mul(1024 * 1024),
        allowed_origins: args.allowed_origins.clone(),
        limits: connection_limits(args),
        ..HttpConfig::default()
    };
    http.allowed_hosts.extend(args.allowed_hosts.iter().cloned());
    let public_host = args.public_url.as_deref().and_then(public_url_host);
    if let Some(host) = &public_host {
        http.allowed_hosts.push(host.clone());
    }
    if !args.listen.ip().is_loopback() && args.allowed_hosts.is_empty() && public_host.is_none() {
        usage!(
            "listening on {} needs --allowed-host NAME for the names clients use to reach \
             this server (the Host header is checked against DNS rebinding)",
            args.listen
        );
    }
    Ok(http)
}

/// The HTTP application: MCP, the page, its docs, OpenAPI and the REST API, metrics and
/// probes, behind the authentication guard.
async fn http_app(args: &ServeArgs, service: Service, http: &HttpConfig) -> anyhow::Result<Router> {
    let server = service.server;
    // The page, its docs, OpenAPI and the REST API share the MCP tools' state, so both
    // doors see the same scans for the same caller.
    let web_config = WebConfig { max_body_bytes: http.max_body_bytes, mcp_path: "/mcp".to_owned() };
    let web = compose::cors(
        mrtd_web::routes_with(service.state.clone(), &web_config),
        Arc::new(mrtd_server::HostOriginPolicy::new(http)),
    );
    let endpoint = McpEndpoint::new(move || Ok(server.clone()), http);
    let mut settings = auth_settings(args, &service.store).await?;
    // An image_url is fetched before its request takes a recognition slot.
    settings.prefetch = service.image_urls.map(|fetcher| {
        Prefetcher(Arc::new(compose::PrefetchImages { fetcher, max_bytes: http.max_body_bytes }))
    });
    // A recognition waits for its slot of the service's gate at the front, holding only
    // its body; over stdio it waits in the service.
    settings.admission = Some(Admission(Arc::new(compose::AdmitReads(service.state.clone()))));
    let guard = AuthGuard::new(settings, http);
    // Metrics and probes: the probes are public paths the guard lets through, /metrics
    // is a protected read; `track` goes outermost so the guard's refusals are counted.
    let observability = Observability::install_with(http, mrtd_service::metrics::HISTOGRAMS)
        .context("installing the metrics recorder")?;
    mrtd_service::metrics::describe();
    mrtd_mcp::metrics::describe();
    let pinged = service.store.clone();
    let mut readiness = Readiness::new().check("store", move || {
        let store = pinged.clone();
        async move { store.ping().await }
    });
    if let Some(detail) = trust_detail(&service.trust_problems) {
        readiness = readiness.detail("trust_store", detail);
    }
    let rest = web.merge(observability.routes(readiness));
    let app = mrtd_server::http::router(endpoint, http, rest);
    Ok(observability.track(guard.protect(compose::identify(app))))
}

/// Warns that the server runs without authentication, on loopback or (with
/// `--insecure-no-auth`) off it.
fn warn_without_auth(args: &ServeArgs) {
    if args.auth == AuthKind::None {
        if args.listen.ip().is_loopback() {
            tracing::warn!(
                "serving without authentication (allowed on loopback only): every local \
                 user and process can call this server; use --auth api-key or --auth oauth \
                 to require credentials"
            );
        } else {
            tracing::warn!(
                "serving without authentication on a non-loopback address \
                 (--insecure-no-auth): anyone who can reach it can call this server"
            );
        }
    }
}

/// The authentication mode and limits from the flags.
async fn auth_settings(
    args: &ServeArgs,
    store: &Arc<dyn mrtd_store::Store>,
) -> anyhow::Result<AuthSettings> {
    let mode = match args.auth {
        AuthKind::None => AuthMode::None,
        AuthKind::ApiKey => AuthMode::ApiKey(Arc::new(StoreKeys(store.clone()))),
        AuthKind::Oauth => {
            let (Some(resource), Some(issuer), Some(jwks)) =
                (&args.public_url, &args.oauth_issuer, &args.oauth_jwks)
            else {
                usage!("--auth oauth needs --public-url, --oauth-issuer and --oauth-jwks");
            };
            let jwks = JwksSource::parse(jwks, args.oauth_jwks_allow_private)?;
            let config = OAuthConfig {
                resource: resource.clone(),
                issuer: issuer.clone(),
                jwks,
                accept_untyped: args.oauth_accept_untyped,
            };
            let verifier = TokenVerifier::new(config).await.context("setting up OAuth")?;
            AuthMode::OAuth(Arc::new(verifier))
        }
    };
    let mut settings = AuthSettings::new(mode);
    settings.access = compose::access_rules();
    settings.rate_limit = (args.rate_limit > 0.0)
        .then_some(RateLimit { per_second: args.rate_limit, burst: args.rate_burst.max(1) });
    settings.budget_wait = Duration::from_secs(args.scan_wait_secs);
    settings.failure_limit = (args.auth_failure_burst > 0).then_some(RateLimit {
        burst: args.auth_failure_burst,
        ..mrtd_server::auth::DEFAULT_FAILURE_LIMIT
    });
    Ok(settings)
}

/// The connection and request bounds from the flags (each at least a second or a KiB;
/// only the per-address cap may be 0, for none).
fn connection_limits(args: &ServeArgs) -> ConnectionLimits {
    let seconds = |n: u64| Duration::from_secs(n.max(1));
    ConnectionLimits {
        header_timeout: seconds(args.header_timeout_secs),
        max_header_bytes: args.max_header_kib.max(1).saturating_mul(1024),
        body_idle_timeout: seconds(args.body_idle_timeout_secs),
        body_timeout: seconds(args.body_timeout_secs),
        request_timeout: seconds(args.request_timeout_secs),
        response_timeout: seconds(args.response_timeout_secs),
        max_connections: args.max_connections.max(1),
        max_connections_per_address: args.max_connections_per_address,
        max_body_memory_bytes: args.max_body_memory_mib.max(1).saturating_mul(1024 * 1024),
        trusted_proxies: mrtd_server::TrustedProxies::new(args.trusted_proxies.clone()),
    }
}

/// Creates `dir` (and its parents) open to this user only (0700): it holds the database
/// and the request-state key. An existing directory is left as the operator made it, with
/// a warning when other users may read it.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if let Ok(metadata) = std::fs::metadata(dir) {
            if metadata.is_dir() && metadata.permissions().mode() & 0o077 != 0 {
                tracing::warn!(
                    "the data directory may be read by other users; chmod 700 it (it holds \
                     the scan database and the request-state key)"
                );
            }
            return if metadata.is_dir() {
                Ok(())
            } else {
                Err(std::io::Error::other("it exists and is not a directory"))
            };
        }
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// The `host[:port]` of the public URL, for the Host allowlist.
fn public_url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    (!authority.is_empty()).then(|| authority.to_ascii_lowercase())
}

/// A token cancelled by Ctrl-C or SIGTERM.
fn tokio_util_shutdown() -> tokio_util::sync::CancellationToken {
    let token = tokio_util::sync::CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        mrtd_server::http::shutdown_signal().await;
        tracing::info!("shutting down: finishing requests in flight");
        trigger.cancel();
    });
    token
}

/// `$XDG_DATA_HOME/mrtd`, or `~/.local/share/mrtd`, or `./mrtd-data`.
pub(crate) fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("mrtd");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".local/share/mrtd");
    }
    PathBuf::from("mrtd-data")
}

/// The given hex key, or the one kept in the data directory (created on first start).
fn request_state_key(given: Option<&str>, data_dir: &Path) -> anyhow::Result<Vec<u8>> {
    if let Some(hex) = given {
        let key = decode_hex(hex.trim()).map_err(|error| {
            CliError::Usage(format!("the request-state key must be hex: {error}"))
        })?;
        if key.len() < 32 {
            usage!("the request-state key must be at least 32 bytes (64 hex digits)");
        }
        return Ok(key);
    }
    let path = data_dir.join("request-state.key");
    if let Ok(text) = std::fs::read_to_string(&path)
        && let Ok(key) = decode_hex(text.trim())
        && key.len() >= 32
    {
        return Ok(key);
    }
    let key: [u8; 32] = rand::random();
    let hex = hex::encode(key);
    write_private(&path, &hex).with_context(|| format!("writing {}", path.display()))?;
    Ok(key.to_vec())
}

fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(text.as_bytes())
}

fn decode_hex(text: &str) -> Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) {
        return Err("odd number of hex digits".to_owned());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                .ok_or_else(|| "not a hex digit".to_owned())
        })
        .collect()
}

/// What fetches `image_url`: `mrtd-fetch` with the operator's hosts and networks, 10
/// seconds, 3 redirects, the request body limit, images and PDFs only, 8 fetches at once
/// (so fetched bodies hold at most 8 × the body limit).
fn image_fetcher(args: &ServeArgs) -> Result<Arc<dyn mrtd_service::ImageFetch>, CliError> {
    let mut policy = mrtd_fetch::FetchPolicy::new(args.max_body_mib.saturating_mul(1024 * 1024));
    policy.allow_http = args.image_url_allow_http;
    policy.allowed_networks = args.image_url_allow_networks.clone();
    policy.allowed_hosts = args.image_url_hosts.clone();
    policy.accept =
        ["image/*", "application/pdf", "application/octet-stream", "binary/octet-stream"]
            .map(str::to_owned)
            .to_vec();
    let fetcher = mrtd_fetch::Fetcher::new(policy)
        .map_err(|error| CliError::Usage(format!("image_url: {error}")))?;
    Ok(Arc::new(crate::compose::UrlImages(fetcher)))
}

/// The trust store of `--csca-dir`: every file in the folder that can be used. Each one that
/// cannot is named with its reason in a warning (and in `/readyz` and every chip report: a
/// server that silently trusts less than it was given would call genuine documents
/// untrusted); a folder where nothing loads is refused.
fn trust_store(dir: Option<&std::path::Path>) -> anyhow::Result<mrtd_chip::TrustStore> {
    let mut trust = mrtd_chip::TrustStore::new();
    if let Some(dir) = dir {
        trust.add_dir(dir).map_err(|error| CliError::Usage(format!("--csca-dir: {error}")))?;
        if !trust.loaded_anything() {
            let problems: Vec<String> = trust.problems().iter().map(ToString::to_string).collect();
            return Err(CliError::Usage(format!(
                "--csca-dir {}: no certificate, master list or CRL could be loaded{}",
                dir.display(),
                if problems.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", problems.join("; "))
                }
            ))
            .into());
        }
        for problem in trust.problems() {
            tracing::warn!(
                file = %problem.file,
                reason = %problem.reason,
                "trust file not loaded; the rest of --csca-dir is used"
            );
        }
        let counts = trust.counts();
        tracing::info!(
            csca_certificates = counts.csca_certificates,
            master_lists = counts.master_lists,
            crls = counts.crls,
            "chip verification trust store loaded"
        );
    }
    Ok(trust)
}

/// What `/readyz` says of the trust store: the files that could not be loaded and why
/// (names only, no paths), or nothing when every file loaded.
fn trust_detail(problems: &[mrtd_chip::TrustProblem]) -> Option<serde_json::Value> {
    if problems.is_empty() {
        return None;
    }
    let files: Vec<serde_json::Value> = problems
        .iter()
        .map(|p| serde_json::json!({ "file": p.file, "reason": p.reason }))
        .collect();
    Some(serde_json::json!({ "unusable_files": files }))
}
