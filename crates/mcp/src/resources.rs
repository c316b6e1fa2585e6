//! Resources: each caller's kept scans (`mrtd://scans/{scan_id}`) and the portraits kept
//! with them (`mrtd://scans/{scan_id}/portrait`), static docs, and the photos in the server's
//! image directory (`mrtd://images/{path}`), which `scan_document` takes as `image_path`.

use rmcp::{
    ErrorData,
    model::{
        CacheScope, ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
        ResourceContents, ResourceTemplate,
    },
};
use serde_json::json;

use mrtd_service::{AppState, Principal, ServiceError, image_path_of, image_uri};

const SCAN_PREFIX: &str = "mrtd://scans/";
/// The URI suffix of the portrait kept with a scan, after its id.
const PORTRAIT_SUFFIX: &str = "/portrait";
/// What reading each family of resources needs: a URI prefix (compared without case) and
/// the access; the docs need nothing.
pub fn resource_access() -> Vec<(&'static str, mrtd_service::Access)> {
    vec![
        ("mrtd://scans", mrtd_service::Access::ReadScans),
        ("mrtd://images", mrtd_service::Access::ReadScans),
    ]
}
/// Docs change only with a new release: clients may cache them for a day.
const DOCS_TTL_MS: u64 = 24 * 60 * 60 * 1000;

struct Doc {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    text: &'static str,
}

const DOCS: [Doc; 3] = [
    Doc {
        uri: "mrtd://docs/photo-guide",
        name: "photo-guide",
        title: "How to photograph a document",
        description: "Advice to pass on to a person whose photo could not be read.",
        text: mrtd_service::docs::guides::PHOTO_GUIDE,
    },
    Doc {
        uri: "mrtd://docs/supported-documents",
        name: "supported-documents",
        title: "Supported documents",
        description: "The MRZ formats mrtd reads and what its verdicts mean.",
        text: mrtd_service::docs::guides::SUPPORTED_DOCUMENTS,
    },
    Doc {
        uri: "mrtd://docs/chip-verification",
        name: "chip-verification",
        title: "Verifying a document's chip",
        description: "Where chip data comes from, what verify_chip checks, and what authentic does not prove.",
        text: mrtd_service::docs::guides::CHIP_VERIFICATION,
    },
];

pub(crate) async fn list(state: &AppState, modern: bool) -> ListResourcesResult {
    let resources = DOCS
        .iter()
        .map(|doc| {
            let mut resource = Resource::new(doc.uri, doc.name);
            resource.title = Some(doc.title.into());
            resource.description = Some(doc.description.into());
            resource.mime_type = Some("text/markdown".into());
            resource.size = u64::try_from(doc.text.len()).ok();
            resource
        })
        .collect();
    let Some(images) = state.image_dir() else {
        let result = ListResourcesResult::with_all_items(resources);
        return if modern {
            result.with_ttl_ms(DOCS_TTL_MS).with_cache_scope(CacheScope::Public)
        } else {
            result
        };
    };
    // The operator's photos change at any time: listed fresh, cached by nobody.
    let mut resources = resources;
    for image in images.list().await {
        let mut resource = Resource::new(image_uri(&image.path), image.path.clone());
        resource.description = Some(
            "A photo in the server's image directory: read it with scan_document, image_path set to this URI or to the path."
                .into(),
        );
        resource.mime_type = Some(mrtd_service::media_type(&image.path).into());
        resource.size = Some(image.size);
        resources.push(resource);
    }
    let result = ListResourcesResult::with_all_items(resources);
    if modern { result.with_ttl_ms(0).with_cache_scope(CacheScope::Private) } else { result }
}

pub(crate) fn templates(state: &AppState, modern: bool) -> ListResourceTemplatesResult {
    let mut template = ResourceTemplate::new("mrtd://scans/{scan_id}", "scan");
    template.title = Some("A kept scan".into());
    template.description = Some(
        "The result of a scan kept with retain_hours above 0; only its creator can read it.".into(),
    );
    template.mime_type = Some("application/json".into());
    let mut portrait = ResourceTemplate::new("mrtd://scans/{scan_id}/portrait", "portrait");
    portrait.title = Some("The portrait kept with a scan".into());
    portrait.description = Some(
        "The holder's portrait (a JPEG) kept with a scan that scan_document kept with include_images; only its creator can read it, until the scan expires or is deleted."
            .into(),
    );
    portrait.mime_type = Some("image/jpeg".into());
    let mut templates = vec![template, portrait];
    if state.image_dir().is_some() {
        let mut images = ResourceTemplate::new("mrtd://images/{path}", "image");
        images.title = Some("A photo in the image directory".into());
        images.description = Some(
            "A photo in the server's image directory (resources/list names them, and only those are read); scan_document reads it with image_path set to this URI."
                .into(),
        );
        templates.push(images);
    }
    let result = ListResourceTemplatesResult::with_all_items(templates);
    if modern {
        result.with_ttl_ms(DOCS_TTL_MS).with_cache_scope(CacheScope::Public)
    } else {
        result
    }
}

/// The refusal of an answer the memory budget has no room for: `-32000` (the server-error
/// code the HTTP front answers its limits with) and, when waiting helps, `retryAfter`.
/// Over HTTP the composition sends it as `503` with `Retry-After`, like the front's other
/// limits (the hold says it was refused); over stdio it is the JSON-RPC error alone.
fn busy(error: mrtd_service::budget::BudgetError, wait: std::time::Duration) -> ErrorData {
    use mrtd_service::budget::BudgetError;
    let code = rmcp::model::ErrorCode(-32000);
    match error {
        BudgetError::TooLarge => ErrorData::new(
            code,
            "This photo is larger than this server serves as a resource; read it with \
             scan_document and image_path instead.",
            None,
        ),
        _ => ErrorData::new(
            code,
            "Service Unavailable: the server is sending too many large files right now; retry \
             shortly.",
            Some(json!({ "retryAfter": wait.as_secs().max(1) })),
        ),
    }
}

pub(crate) async fn read(
    state: &AppState,
    principal: &Principal,
    uri: &str,
    modern: bool,
    hold: Option<&mrtd_service::ResponseHold>,
) -> Result<ReadResourceResult, ErrorData> {
    let hints = |result: ReadResourceResult, ttl_ms: u64, scope: CacheScope| {
        if modern { result.with_ttl_ms(ttl_ms).with_cache_scope(scope) } else { result }
    };
    if let Some(doc) = DOCS.iter().find(|doc| doc.uri == uri) {
        let contents = ResourceContents::TextResourceContents {
            uri: doc.uri.into(),
            mime_type: Some("text/markdown".into()),
            text: doc.text.into(),
            meta: None,
        };
        return Ok(hints(ReadResourceResult::new(vec![contents]), DOCS_TTL_MS, CacheScope::Public));
    }
    // Only what `resources/list` shows is served: an image file by its extension, no hidden
    // entry, no link. The directory may hold other files (`.htpasswd`, notes) that no caller
    // was shown, and asking for one answers exactly as for a file that does not exist.
    // The answer (file, base64, message) takes its share of the memory budget before the
    // file is read, and keeps it until the response is written.
    if let (Some(path), Some(images)) = (image_path_of(uri), state.image_dir())
        && let Some(listed) = images.list().await.into_iter().find(|listed| listed.path == path)
    {
        let share = state
            .answer_budget()
            .take(mrtd_service::budget::answer_bytes(listed.size))
            .await
            .map_err(|error| {
                let wait = state.answer_budget().wait();
                if let (mrtd_service::budget::BudgetError::Busy, Some(hold)) = (error, hold) {
                    hold.refuse(wait);
                }
                busy(error, wait)
            })?;
        if let Ok(blob) = images.read_base64(&path).await {
            if let Some(hold) = hold {
                hold.keep(share);
            }
            let contents = ResourceContents::BlobResourceContents {
                uri: uri.into(),
                mime_type: Some(mrtd_service::media_type(&path).into()),
                blob,
                meta: None,
            };
            return Ok(hints(ReadResourceResult::new(vec![contents]), 0, CacheScope::Private));
        }
    }
    if let Some(scan_id) =
        uri.strip_prefix(SCAN_PREFIX).and_then(|r| r.strip_suffix(PORTRAIT_SUFFIX))
    {
        return match portrait(state, uri, principal, scan_id, hold).await? {
            Some(result) => Ok(hints(result, 0, CacheScope::Private)),
            None => Err(not_found(uri)),
        };
    }
    if let Some(scan_id) = uri.strip_prefix(SCAN_PREFIX) {
        match mrtd_service::ops::get(state, principal, scan_id).await {
            Ok(kept) => {
                let contents = ResourceContents::TextResourceContents {
                    uri: uri.into(),
                    mime_type: Some("application/json".into()),
                    text: kept.to_value().to_string(),
                    meta: None,
                };
                return Ok(hints(ReadResourceResult::new(vec![contents]), 0, CacheScope::Private));
            }
            Err(ServiceError::NotFound) => {}
            Err(_) => {
                // The service logged the store's failure.
                return Err(ErrorData::internal_error("the scan store is unavailable", None));
            }
        }
    }
    Err(not_found(uri))
}

/// The answer for a resource nobody may read or that does not exist: the same either way.
fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found("Resource not found", Some(json!({ "uri": uri })))
}

/// The portrait kept with the caller's scan `scan_id`, as a blob; `None` when there is none
/// the caller may see (unknown, expired, deleted, another's scan, or one kept without one).
/// The answer takes its share of the memory budget once its size is known, and keeps it
/// until the response is written.
async fn portrait(
    state: &AppState,
    uri: &str,
    principal: &Principal,
    scan_id: &str,
    hold: Option<&mrtd_service::ResponseHold>,
) -> Result<Option<ReadResourceResult>, ErrorData> {
    let jpeg = match mrtd_service::ops::portrait(state, principal, scan_id).await {
        Ok(jpeg) => jpeg,
        Err(ServiceError::NotFound) => return Ok(None),
        // The service logged the store's failure.
        Err(_) => return Err(ErrorData::internal_error("the scan store is unavailable", None)),
    };
    let size = u64::try_from(jpeg.len()).unwrap_or(u64::MAX);
    let share =
        state.answer_budget().take(mrtd_service::budget::answer_bytes(size)).await.map_err(
            |error| {
                let wait = state.answer_budget().wait();
                if let (mrtd_service::budget::BudgetError::Busy, Some(hold)) = (error, hold) {
                    hold.refuse(wait);
                }
                busy(error, wait)
            },
        )?;
    if let Some(hold) = hold {
        hold.keep(share);
    }
    use base64::Engine as _;
    let contents = ResourceContents::BlobResourceContents {
        uri: uri.into(),
        mime_type: Some("image/jpeg".into()),
        blob: base64::engine::general_purpose::STANDARD.encode(jpeg),
        meta: None,
    };
    Ok(Some(ReadResourceResult::new(vec![contents])))
}
