//! REST errors: RFC 9457 problem details (`application/problem+json`) with a status that says
//! what to do: `type` (stable per error, a link to its documentation), `title`, `status`,
//! `detail`, the `code` it names, and the same as `{"error": {"code", "message"}}` for clients
//! written against the earlier shape.

use axum::{
    Json,
    extract::multipart::{MultipartError, MultipartRejection},
    extract::rejection::{BytesRejection, JsonRejection},
    response::{IntoResponse, Response},
};
use http::{HeaderValue, StatusCode, header};
use mrtd_service::ServiceError;
use serde_json::json;

/// Every `code` a REST error may carry, from this crate and from the HTTP front's guard
/// (`unauthorized`, `forbidden`, `request_timeout`, `rate_limited`): the OpenAPI document's
/// enum, the table in `docs/rest.md`, and the codes the page has words for in both languages.
pub(crate) const CODES: &[&str] = &[
    "invalid_request",
    "invalid_cursor",
    "unauthorized",
    "forbidden",
    "not_found",
    "method_not_allowed",
    "request_timeout",
    "payload_too_large",
    "unsupported_media_type",
    "unreadable_image",
    "not_mrz",
    "image_url_refused",
    "unreadable_chip_data",
    "rate_limited",
    "internal",
    "store_unavailable",
    "busy",
];

/// A REST error. Its message is written for the caller and never carries internals.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable machine-readable code, such as `not_found`.
    pub code: &'static str,
    /// What went wrong and what to do, for people.
    pub message: String,
}

impl ApiError {
    /// An error with this status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, code, message: message.into() }
    }

    /// `400 invalid_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, "invalid_request", message)
    }

    /// `415 unsupported_media_type`.
    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", message)
    }

    /// `413 payload_too_large`.
    pub fn too_large() -> Self {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "The request body is larger than this server accepts; send a smaller photo.",
        )
    }

    /// `404 not_found` for a path that is no part of the API.
    pub fn no_route() -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", "No such endpoint; see /openapi.json.")
    }

    /// `405 method_not_allowed` for an API path that exists but not with this method.
    pub fn method_not_allowed() -> Self {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "This endpoint does not take this method; `Allow` names those it takes, and /openapi.json describes them.",
        )
    }

    /// The error of a request body that could not be read: too large or cut short.
    fn body(status: StatusCode) -> Self {
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large()
        } else {
            ApiError::bad_request("The request body could not be read.")
        }
    }
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        let message = error.to_string();
        let (status, code) = match &error {
            ServiceError::InvalidInput(_) => (StatusCode::BAD_REQUEST, "invalid_request"),
            ServiceError::InvalidCursor => (StatusCode::BAD_REQUEST, "invalid_cursor"),
            ServiceError::NotMrz(_) => (StatusCode::UNPROCESSABLE_ENTITY, "not_mrz"),
            ServiceError::UnusableImage(_) => {
                (StatusCode::UNPROCESSABLE_ENTITY, "unreadable_image")
            }
            ServiceError::ImageUrl(_) => (StatusCode::UNPROCESSABLE_ENTITY, "image_url_refused"),
            ServiceError::ChipData(_) => (StatusCode::UNPROCESSABLE_ENTITY, "unreadable_chip_data"),
            ServiceError::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            ServiceError::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "store_unavailable"),
            ServiceError::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        ApiError::new(status, code, message)
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> Self {
        ApiError::body(rejection.status())
    }
}

impl From<MultipartRejection> for ApiError {
    fn from(rejection: MultipartRejection) -> Self {
        ApiError::bad_request(format!(
            "The multipart body could not be read: {}",
            rejection.body_text()
        ))
    }
}

impl From<MultipartError> for ApiError {
    fn from(error: MultipartError) -> Self {
        if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large()
        } else {
            ApiError::bad_request("The multipart body is malformed.")
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        match rejection {
            JsonRejection::MissingJsonContentType(_) => {
                ApiError::unsupported_media_type("Send the body as application/json.")
            }
            JsonRejection::BytesRejection(bytes) => ApiError::body(bytes.status()),
            other => {
                ApiError::bad_request(format!("The JSON body is not valid: {}", other.body_text()))
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = problem(self.status, self.code, &self.message);
        let mut response = (self.status, Json(body)).into_response();
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}

/// The media type of an error body (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

/// An RFC 9457 problem: `type` is the error's section in the REST docs (a URI reference
/// resolved against the request's), `title` the status's reason, `detail` the message.
pub fn problem(status: StatusCode, code: &str, message: &str) -> serde_json::Value {
    json!({
        "type": format!("/docs/rest.md#{code}"),
        "title": status.canonical_reason().unwrap_or("Error"),
        "status": status.as_u16(),
        "detail": message,
        "code": code,
        "error": { "code": code, "message": message },
    })
}
