//! The fixture's `ServerHandler`: capabilities and dispatch to the feature modules.

use std::sync::{Arc, Mutex};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
        CompletionInfo, GetPromptRequestParams, GetPromptResponse, Implementation,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
        LoggingLevel, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
        ReadResourceResponse, RequestStateCodec, ServerCapabilities, ServerConfig,
        SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool,
        UnsubscribeRequestParams,
    },
    service::{RequestContext, SubscriptionContext},
};

use crate::{prompts, resources, subscriptions::Hub, tools};

/// State shared by every handler instance of one process.
///
/// Without sessions rmcp builds a handler per request, so anything that must outlive a
/// request (open subscription streams, the `requestState` key) lives here.
pub struct Shared {
    /// Whether 2025-era clients get sessions (and so can receive server requests).
    pub legacy_sessions: bool,
    /// Seals and opens MRTR `requestState` with a per-process random key.
    pub state_codec: RequestStateCodec,
    /// Open `subscriptions/listen` streams.
    pub hub: Hub,
}

impl Shared {
    /// Creates the process state with a fresh random `requestState` key.
    pub fn new(legacy_sessions: bool) -> Self {
        let key: [u8; 32] = rand::random();
        Shared {
            legacy_sessions,
            state_codec: RequestStateCodec::new(key.to_vec()),
            hub: Hub::default(),
        }
    }
}

/// One handler: per session with `--legacy-sessions`, otherwise per request.
#[derive(Clone)]
pub struct Fixture {
    pub shared: Arc<Shared>,
    /// The level a 2025-era client chose with `logging/setLevel` (session scoped).
    pub log_level: Arc<Mutex<Option<LoggingLevel>>>,
    /// Resources a 2025-era client subscribed to with `resources/subscribe`.
    pub subscribed: Arc<Mutex<Vec<String>>>,
}

impl Fixture {
    pub fn new(shared: Arc<Shared>) -> Self {
        Fixture { shared, log_level: Arc::default(), subscribed: Arc::default() }
    }
}

/// How long clients may cache a list: the fixture's lists never change for real.
const LIST_TTL_MS: u64 = 300_000;
/// How long clients may cache a resource read.
const READ_TTL_MS: u64 = 60_000;

/// Caching hints for a list result. Only the 2026 wire has them: rmcp does not strip
/// explicit hints for 2025-era peers, whose schema does not define them.
fn list_hints(wire: Wire) -> (Option<u64>, Option<CacheScope>) {
    match wire {
        Wire::Modern => (Some(LIST_TTL_MS), Some(CacheScope::Public)),
        Wire::Legacy => (None, None),
    }
}

/// Which wire a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// 2026-07-28: stateless, per-request `_meta`, MRTR instead of server requests.
    Modern,
    /// 2025-11-25 and older: `initialize` handshake.
    Legacy,
}

impl Wire {
    pub fn of(context: &RequestContext<RoleServer>) -> Wire {
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if modern { Wire::Modern } else { Wire::Legacy }
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_logging()
            .enable_completions()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("mrtd-conformance", env!("CARGO_PKG_VERSION"));
        info
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::find(name)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let wire = Wire::of(&context);
        let mut result = ListToolsResult::with_all_items(tools::listed(wire));
        (result.ttl_ms, result.cache_scope) = list_hints(wire);
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        tools::call(self, request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let wire = Wire::of(&context);
        let mut result = ListPromptsResult::with_all_items(prompts::listed(wire));
        (result.ttl_ms, result.cache_scope) = list_hints(wire);
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompts::get(self, request, Wire::of(&context))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut result = ListResourcesResult::with_all_items(resources::listed());
        (result.ttl_ms, result.cache_scope) = list_hints(Wire::of(&context));
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut result = ListResourceTemplatesResult::with_all_items(resources::templates());
        (result.ttl_ms, result.cache_scope) = list_hints(Wire::of(&context));
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let mut result = resources::read(&request.uri)?;
        if Wire::of(&context) == Wire::Modern {
            // Resource contents are treated as per-caller data.
            result.ttl_ms = Some(READ_TTL_MS);
            result.cache_scope = Some(CacheScope::Private);
        }
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let values = prompts::complete(&request)?;
        let total = u32::try_from(values.len()).unwrap_or(u32::MAX);
        let mut info =
            CompletionInfo::new(values).map_err(|e| ErrorData::internal_error(e, None))?;
        info.total = Some(total);
        info.has_more = Some(false);
        Ok(CompleteResult::new(info))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Ok(mut level) = self.log_level.lock() {
            *level = Some(request.level);
        }
        Ok(())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        resources::check_exists(&request.uri)?;
        if let Ok(mut subscribed) = self.subscribed.lock()
            && !subscribed.contains(&request.uri)
        {
            subscribed.push(request.uri);
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Ok(mut subscribed) = self.subscribed.lock() {
            subscribed.retain(|uri| *uri != request.uri);
        }
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Every notification type the fixture can produce is accepted; rmcp narrows the
        // filter to what was requested and what `get_info` advertises.
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let registration = self.shared.hub.register(context.sink().clone());
        context.cancelled().await;
        drop(registration);
        Ok(())
    }
}
