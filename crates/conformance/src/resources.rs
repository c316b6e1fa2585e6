//! Resources and resource templates of the fixture.

use rmcp::{
    ErrorData,
    model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate},
};
use serde_json::json;

use crate::media::PNG_1X1;

pub const STATIC_TEXT: &str = "test://static-text";
pub const STATIC_BINARY: &str = "test://static-binary";
pub const WATCHED: &str = "test://watched-resource";
const TEMPLATE: &str = "test://template/{id}/data";

/// The listed resources. The first one must be readable as is: the caching scenario
/// reads whatever comes first.
pub fn listed() -> Vec<Resource> {
    vec![
        Resource::new(STATIC_TEXT, "Static text resource")
            .with_description("A static plain-text resource")
            .with_mime_type("text/plain"),
        Resource::new(STATIC_BINARY, "Static binary resource")
            .with_description("A static 1x1 PNG image")
            .with_mime_type("image/png"),
        Resource::new(WATCHED, "Watched resource")
            .with_description("A plain-text resource clients may subscribe to")
            .with_mime_type("text/plain"),
    ]
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(TEMPLATE, "Template data")
            .with_description("JSON data for the identifier in the URI")
            .with_mime_type("application/json"),
    ]
}

/// Reads one resource; unknown URIs are an error carrying the URI (never empty contents).
pub fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let contents = match uri {
        STATIC_TEXT => {
            ResourceContents::text("This is the content of the static text resource.", uri)
                .with_mime_type("text/plain")
        }
        STATIC_BINARY => ResourceContents::blob(PNG_1X1, uri).with_mime_type("image/png"),
        WATCHED => ResourceContents::text("The watched resource has not changed.", uri)
            .with_mime_type("text/plain"),
        _ => match template_id(uri) {
            Some(id) => {
                let body =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                ResourceContents::text(body.to_string(), uri).with_mime_type("application/json")
            }
            None => return Err(not_found(uri)),
        },
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Succeeds when `uri` names a readable resource.
pub fn check_exists(uri: &str) -> Result<(), ErrorData> {
    read(uri).map(|_| ())
}

/// `-32002` with `data.uri`; rmcp turns the code into `-32602` on the 2026 wire.
fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(format!("Resource not found: {uri}"), Some(json!({"uri": uri})))
}

/// The `{id}` of `test://template/{id}/data`, if `uri` has that shape.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
    let valid =
        !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_uris_resolve_to_their_identifier() {
        assert_eq!(template_id("test://template/123/data"), Some("123"));
        assert_eq!(template_id("test://template//data"), None);
        assert_eq!(template_id("test://template/a/b/data"), None);
    }

    #[test]
    fn unknown_resources_are_errors_with_the_uri() {
        let error = read("test://nope").unwrap_err();
        assert_eq!(error.data, Some(json!({"uri": "test://nope"})));
    }
}
