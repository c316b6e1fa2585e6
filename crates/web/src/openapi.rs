//! `GET /openapi.json`: OpenAPI 3.1 for the REST API.
//!
//! The document result's schema is generated from its type
//! ([`mrtd_service::result::schema`]), the same one the MCP tools publish as
//! `outputSchema`; its definitions join `components/schemas`. The other schemas are generated
//! from the service's types too (`mrtd_service::schema`).

use std::sync::OnceLock;

use axum::{
    Json,
    response::{IntoResponse, Response},
};
use http::{HeaderValue, header};
use mrtd_service::{
    arguments::{ParseArguments, ScanArguments},
    check::{CheckAnswers, CheckRequest},
    chip,
    kept::ScanList,
    schema,
};
use serde_json::{Map, Value, json};

/// The document result's schema, its definitions moved into `schemas` (the components of
/// the OpenAPI document) and its references pointed there.
fn document_result(schemas: &mut Map<String, Value>) -> Value {
    let mut schema = mrtd_service::result::schema();
    if let Some(Value::Object(definitions)) =
        schema.as_object_mut().and_then(|object| object.remove("definitions"))
    {
        for (name, mut definition) in definitions {
            repoint(&mut definition);
            schemas.insert(name, definition);
        }
    }
    repoint(&mut schema);
    schema
}

/// Points every `#/definitions/` reference inside `value` at `#/components/schemas/`.
fn repoint(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object.iter_mut() {
                match (key.as_str(), inner) {
                    ("$ref", Value::String(target)) => {
                        if let Some(name) = target.strip_prefix("#/definitions/") {
                            *target = format!("#/components/schemas/{name}");
                        }
                    }
                    (_, inner) => repoint(inner),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(repoint),
        _ => {}
    }
}

/// The schema of the argument `name` in the schema of an operation's `arguments`.
fn argument(arguments: &Value, name: &str) -> Value {
    arguments.pointer(&format!("/properties/{name}")).cloned().unwrap_or_else(|| json!({}))
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Error" } } }
    })
}

fn error_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/responses/{name}") })
}

/// Responses every protected operation may give before it runs.
fn guarded(mut responses: Map<String, Value>) -> Value {
    for (status, name) in
        [("401", "Unauthorized"), ("403", "Forbidden"), ("429", "TooManyRequests")]
    {
        responses.entry(status).or_insert_with(|| error_ref(name));
    }
    Value::Object(responses)
}

fn result_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DocumentResult" } } }
    })
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn scan_id_parameter() -> Value {
    json!({
        "name": "id", "in": "path", "required": true,
        "description": "The scan_id returned when the scan was kept.",
        "schema": { "type": "string" }
    })
}

/// The document's `info`: title, version, summary, description and licence.
fn info() -> Value {
    json!({
        "title": "mrtd REST API",
        "version": env!("CARGO_PKG_VERSION"),
        "summary": "Read passports, ID cards and visas (ICAO 9303 MRZ) from photos.",
        "description": "The same operations and results as mrtd's MCP tools over plain HTTP. Results are the tools' structuredContent. Kept scans belong to the caller: another caller's scan is 404, like an unknown or expired one. When the server runs with authentication, send an API key (X-Api-Key or Authorization: Bearer) or an OAuth access token.",
        "license": { "name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0" }
    })
}

/// `POST /v1/scans`: read a photo, given as the body, a multipart form or JSON.
fn scan_operation(scan_arguments: &Value) -> Value {
    let retain_hours = argument(scan_arguments, "retain_hours");
    let reference_date = argument(scan_arguments, "reference_date");
    // The JSON body is `scan_document`'s arguments, with its one source said as a schema.
    let mut scan_json = scan_arguments.clone();
    scan_json["oneOf"] = json!([
        { "required": ["image_base64"] },
        { "required": ["image_url"] },
        { "required": ["image_path"] }
    ]);
    json!({
        "operationId": "scan_document",
        "summary": "Read a photo of a travel document",
        "description": "Reads the MRZ of a photo. A photo without a readable MRZ is still a result (status partial or no_mrz, with diagnostics). With retain_hours above 0 a fully read result is kept for get; the answer is then 201 with Location. The photo may be the body itself (image/*, application/pdf or application/octet-stream; retain_hours and reference_date then go in the query), a multipart form or JSON.",
        "parameters": [
            { "name": "retain_hours", "in": "query", "required": false, "description": "With the photo as the body: keep the result this many hours.", "schema": retain_hours },
            { "name": "reference_date", "in": "query", "required": false, "description": "With the photo as the body: YYYY-MM-DD.", "schema": reference_date },
            { "name": "include_images", "in": "query", "required": false, "description": "With the photo as the body: true to answer the page and the portrait as images.", "schema": { "type": "string", "enum": ["true", "false", "1", "0"] } },
            { "name": "visual_zone", "in": "query", "required": false, "description": "With the photo as the body: true to read the visual zone too (visual_zone in the result).", "schema": { "type": "string", "enum": ["true", "false", "1", "0"] } }
        ],
        "requestBody": {
            "required": true,
            "content": {
                "image/*": { "schema": { "type": "string", "contentMediaType": "image/*" } },
                "application/pdf": { "schema": { "type": "string", "contentMediaType": "application/pdf" } },
                "application/octet-stream": { "schema": { "type": "string", "contentMediaType": "application/octet-stream" } },
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "image": { "type": "string", "contentMediaType": "application/octet-stream", "description": "The photo (JPEG, PNG, WebP, TIFF, BMP, HEIC or a scanned PDF)." },
                            "other_side": { "type": "string", "contentMediaType": "application/octet-stream", "description": "A photo of the document's other side (a card's front or back, either order), read together with 'image': the result is of the side with the MRZ, other_side names the other." },
                            "include_images": { "type": "string", "enum": ["true", "false", "1", "0"], "description": "true: also answer the page, straightened, and the portrait as JPEG images (images in the result); with retain_hours above 0 the portrait is kept with the scan (GET /v1/scans/{id}/portrait), the page never." },
                            "visual_zone": { "type": "string", "enum": ["true", "false", "1", "0"], "description": "true: also read the visual zone, the fields printed for people (date of issue, place of birth, issuing authority, personal number, names as printed), and compare those the MRZ holds with it (visual_zone in the result); seconds more a photo." },
                            "retain_hours": retain_hours,
                            "reference_date": reference_date
                        },
                        "required": ["image"]
                    },
                    "encoding": {
                        "image": { "contentType": "image/*, application/pdf, application/octet-stream" },
                        "other_side": { "contentType": "image/*, application/pdf, application/octet-stream" }
                    }
                },
                "application/json": { "schema": scan_json }
            }
        },
        "responses": guarded(object(json!({
            "200": result_response("The document result (not kept)."),
            "201": {
                "description": "The document result, kept as the caller's scan.",
                "headers": { "Location": { "schema": { "type": "string" }, "description": "/v1/scans/{scan_id}" } },
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/DocumentResult" } } }
            },
            "400": error_ref("BadRequest"),
            "413": error_ref("PayloadTooLarge"),
            "415": error_ref("UnsupportedMediaType"),
            "422": error_response("The body is not an image this server can decode (code unreadable_image), or image_url was not fetched (code image_url_refused)."),
            "503": error_ref("Unavailable")
        })))
    })
}

/// `GET /v1/scans`: one page of the caller's kept scans.
fn list_scans_operation() -> Value {
    json!({
        "operationId": "list_scans",
        "summary": "List the caller's kept scans, newest first",
        "parameters": [
            { "name": "cursor", "in": "query", "schema": { "type": "string" }, "description": "next_cursor from the previous page." },
            { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 100, "default": 20 } }
        ],
        "responses": guarded(object(json!({
            "200": {
                "description": "One page of kept scans (no document fields).",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ScanList" } } }
            },
            "400": error_ref("BadRequest"),
            "503": error_ref("Unavailable")
        })))
    })
}

/// `/v1/scans/{id}`: get or delete one of the caller's kept scans.
fn kept_scan_path() -> Value {
    json!({
        "parameters": [scan_id_parameter()],
        "get": {
            "operationId": "get_scan",
            "summary": "Get one of the caller's kept scans",
            "responses": guarded(object(json!({
                "200": result_response("The kept result, with scan_id and expires_at."),
                "404": error_ref("NotFound"),
                "503": error_ref("Unavailable")
            })))
        },
        "delete": {
            "operationId": "delete_scan",
            "summary": "Forget one of the caller's kept scans now",
            "responses": guarded(object(json!({
                "204": { "description": "Deleted." },
                "404": error_ref("NotFound"),
                "503": error_ref("Unavailable")
            })))
        }
    })
}

/// `/v1/scans/{id}/portrait`: the portrait kept with one of the caller's scans.
fn kept_portrait_path() -> Value {
    json!({
        "parameters": [scan_id_parameter()],
        "get": {
            "operationId": "get_scan_portrait",
            "summary": "Get the portrait kept with one of the caller's scans",
            "description": "The holder's portrait, a JPEG, kept with a scan made with include_images and retain_hours above 0 (the result's portrait part then links it as image). It is biometric data: served to the scan's owner only, until the scan expires or is deleted, never cached. A scan kept without a portrait is 404, like an unknown one.",
            "responses": guarded(object(json!({
                "200": {
                    "description": "The portrait.",
                    "headers": { "Cache-Control": { "schema": { "type": "string", "const": "no-store" } } },
                    "content": { "image/jpeg": { "schema": { "type": "string", "contentMediaType": "image/jpeg" } } }
                },
                "404": error_ref("NotFound"),
                "503": error_ref("Unavailable")
            })))
        }
    })
}

/// `POST /v1/parse`: parse typed or pasted MRZ lines.
fn parse_operation(reference_date: &Value) -> Value {
    json!({
        "operationId": "parse_mrz",
        "summary": "Parse typed or pasted MRZ lines",
        "requestBody": {
            "required": true,
            "content": { "application/json": { "schema": {
                "type": "object",
                "properties": {
                    "lines": { "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 3, "description": "The 2 or 3 MRZ lines, top first." },
                    "text": { "type": "string", "description": "The lines as one text, one per line." },
                    "reference_date": reference_date,
                    "correct": argument(&schema::input::<ParseArguments>(), "correct")
                },
                "oneOf": [{ "required": ["lines"] }, { "required": ["text"] }],
                "additionalProperties": false
            } } }
        },
        "responses": guarded(object(json!({
            "200": result_response("The document result."),
            "400": error_ref("BadRequest"),
            "413": error_ref("PayloadTooLarge"),
            "415": error_ref("UnsupportedMediaType"),
            "422": error_response("The text is not an MRZ (code not_mrz).")
        })))
    })
}

/// `POST /v1/check`: yes/no questions about a kept scan or given lines.
fn check_operation() -> Value {
    json!({
        "operationId": "check_document",
        "summary": "Answer yes/no questions about a document without revealing it",
        "description": "Whether the holder is at least min_age today, the document unexpired on valid_on, the nationality one of nationality_in, whether the fields the page prints (printed) agree with the MRZ, and whether the check digits hold, for one of the caller's kept scans (scan_id) or MRZ lines given; no document field is returned. Ask at least one question.",
        "requestBody": {
            "required": true,
            "content": { "application/json": { "schema": schema::input::<CheckRequest>() } }
        },
        "responses": guarded(object(json!({
            "200": {
                "description": "The answers; null where the document does not say.",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/CheckAnswers" } } }
            },
            "400": error_ref("BadRequest"),
            "404": error_response("No such kept scan for this caller (code not_found)."),
            "413": error_ref("PayloadTooLarge"),
            "415": error_ref("UnsupportedMediaType"),
            "422": error_response("The lines are not an MRZ (code not_mrz)."),
            "503": error_ref("Unavailable")
        })))
    })
}

/// `POST /v1/chip/verify`: Passive Authentication of a chip's data.
fn verify_chip_operation() -> Value {
    json!({
        "operationId": "verify_chip",
        "summary": "Verify a document's chip data (ICAO 9303 Passive Authentication)",
        "description": "EF.SOD and the data groups an NFC reader app read from the chip, checked against the server's CSCA trust store; optionally DG1 against a kept scan's or given printed MRZ. Nothing is kept.",
        "requestBody": {
            "required": true,
            "content": { "application/json": { "schema": schema::input::<chip::ChipArguments>() } }
        },
        "responses": guarded(object(json!({
            "200": {
                "description": "The chip report (authentic, signature, chain, data_groups, mrz, mrz_match).",
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ChipReport" } } }
            },
            "400": error_ref("BadRequest"),
            "404": error_response("No such kept scan for this caller (code not_found)."),
            "413": error_ref("PayloadTooLarge"),
            "415": error_ref("UnsupportedMediaType"),
            "422": error_response("EF.SOD or a data group cannot be read (code unreadable_chip_data).")
        })))
    })
}

/// The `Error` schema: an RFC 9457 problem, with the earlier `error` object inside.
fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "An RFC 9457 problem (application/problem+json): type (the error's section in /docs/rest.md, stable per code), title, status, detail, the code, and `error` repeating code and message for clients of the earlier shape; limits add retry_after.",
        "properties": {
            "type": { "type": "string", "description": "A URI reference naming the error, e.g. /docs/rest.md#not_found." },
            "title": { "type": "string" },
            "status": { "type": "integer" },
            "detail": { "type": "string", "description": "What went wrong and what to do." },
            "code": { "type": "string", "enum": crate::error::CODES },
            "retry_after": { "type": "integer", "description": "Seconds to wait before retrying." },
            "error": {
                "type": "object",
                "properties": {
                    "code": { "type": "string", "enum": crate::error::CODES },
                    "status": { "type": "integer" },
                    "message": { "type": "string" },
                    "retry_after": { "type": "integer", "description": "Seconds to wait before retrying." }
                },
                "required": ["code", "message"]
            }
        },
        "required": ["type", "title", "status", "detail", "code", "error"]
    })
}

/// The document's `components`: the API's schemas (`result` being the document result's),
/// the shared error responses and the security schemes.
fn components(result: &Value) -> Value {
    json!({
        "schemas": {
            "DocumentResult": result,
            "ScanList": schema::output::<ScanList>(),
            "ChipReport": chip::schema(),
            "CheckAnswers": schema::output::<CheckAnswers>(),
            "Error": error_schema()
        },
        "responses": {
            "BadRequest": error_response("The request is not valid (code invalid_request or invalid_cursor)."),
            "Unauthorized": error_response("Credentials are missing or not valid; see WWW-Authenticate."),
            "Forbidden": error_response("The credentials lack a scope this operation needs, or the Origin is not allowed."),
            "NotFound": error_response("No scan the caller may see has this id: unknown, expired, deleted or another caller's."),
            "PayloadTooLarge": error_response("The body exceeds the server's limit (36 MiB by default)."),
            "UnsupportedMediaType": error_response("The body's Content-Type is not one this operation takes."),
            "TooManyRequests": error_response("The caller's rate limit is exceeded; see Retry-After."),
            "Unavailable": error_response("The scan store or every recognition slot is busy; see Retry-After.")
        },
        "securitySchemes": {
            "apiKey": { "type": "apiKey", "in": "header", "name": "X-Api-Key", "description": "A key from `mrtd keys create` (servers run with --auth api-key)." },
            "bearer": { "type": "http", "scheme": "bearer", "description": "An API key or an OAuth 2.1 access token (servers run with --auth oauth; scopes scans:read, scans:write)." }
        }
    })
}

/// The OpenAPI 3.1 document of the REST API.
pub fn document() -> Value {
    let scan_arguments = schema::input::<ScanArguments>();
    let reference_date = argument(&scan_arguments, "reference_date");
    let mut schemas = Map::new();
    let result = document_result(&mut schemas);
    let mut document = json!({
        "openapi": "3.1.0",
        "info": info(),
        "servers": [{ "url": "/" }],
        "security": [{ "apiKey": [] }, { "bearer": [] }, {}],
        "paths": {
            "/v1/scans": {
                "post": scan_operation(&scan_arguments),
                "get": list_scans_operation()
            },
            "/v1/scans/{id}": kept_scan_path(),
            "/v1/scans/{id}/portrait": kept_portrait_path(),
            "/v1/parse": { "post": parse_operation(&reference_date) },
            "/v1/check": { "post": check_operation() },
            "/v1/chip/verify": { "post": verify_chip_operation() }
        },
        "components": components(&result)
    });
    if let Some(Value::Object(components)) = document.pointer_mut("/components/schemas") {
        for (name, definition) in schemas {
            // The type names of the result never clash with the API's own schemas.
            components.entry(name).or_insert(definition);
        }
    }
    document
}

/// `GET /openapi.json`.
pub(crate) async fn serve() -> Response {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    let mut response = Json(DOCUMENT.get_or_init(document).clone()).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
