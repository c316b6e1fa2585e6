//! OAuth resource server behaviour with real signed JWTs: keys are generated here, the key
//! set is served from a file and from a loopback URL, and requests go through the real
//! router (and once through a real socket).

use crate::auth_common as common;

use std::sync::Arc;

use axum::{Router, body::Body, routing::get};
use base64::Engine;
use common::*;
use http::{Request, StatusCode};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mrtd_server::{
    HttpConfig,
    auth::{
        AuthGuard, AuthMode, AuthSettings, OAuthConfig, TokenVerifier,
        jwks::{JwksError, JwksSource},
        oauth::OAuthConfigError,
    },
};
use serde_json::json;

const METADATA_URL: &str = "https://mrtd.test/.well-known/oauth-protected-resource/mcp";

struct Setup {
    app: Router,
    key: SigningKey,
    _dir: tempfile::TempDir,
}

async fn verifier_from(source: JwksSource) -> Result<TokenVerifier, OAuthConfigError> {
    TokenVerifier::new(OAuthConfig {
        resource: RESOURCE.to_owned(),
        issuer: ISSUER.to_owned(),
        jwks: source,
        accept_untyped: false,
    })
    .await
}

fn guarded(verifier: TokenVerifier) -> Router {
    let http = HttpConfig::default();
    let mut settings = AuthSettings::new(AuthMode::OAuth(Arc::new(verifier)));
    settings.access = access_rules();
    let guard = AuthGuard::new(settings, &http);
    app(Handler::default(), &http, |router| guard.protect(router))
}

/// A server whose issuer's key set is a file holding one freshly made key.
async fn setup() -> Setup {
    let key = SigningKey::generate("key-1");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jwks.json");
    std::fs::write(&path, jwks(&[&key])).unwrap();
    let verifier = verifier_from(JwksSource::File(path)).await.expect("verifier");
    Setup { app: guarded(verifier), key, _dir: dir }
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn assert_invalid_token(reply: &Reply) {
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{:?}", reply.body);
    let challenge = reply.header("www-authenticate");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"{METADATA_URL}\"")), "{challenge}");
    assert_eq!(reply.body["jsonrpc"], "2.0");
    assert!(reply.body["error"]["code"].is_i64());
}

#[tokio::test]
async fn valid_token_reaches_the_tools_as_its_subject() {
    let s = setup().await;
    let token = s.key.sign(&claims("alice", "scans:read"));
    let reply = send(&s.app, tool_call("whoami", json!({}), Some(&token))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.tool_text(), "oauth:https://issuer.test#alice");
}

#[tokio::test]
async fn missing_token_gets_401_with_resource_metadata() {
    let s = setup().await;
    let reply = send(&s.app, tool_call("whoami", json!({}), None)).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.header("www-authenticate"),
        format!("Bearer resource_metadata=\"{METADATA_URL}\", scope=\"scans:read scans:write\"")
    );
    // A token in the query string is not a token.
    let mut request = tool_call("whoami", json!({}), None);
    let token = s.key.sign(&claims("alice", ""));
    *request.uri_mut() = format!("/mcp?access_token={token}").parse().unwrap();
    assert_eq!(send(&s.app, request).await.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn wrong_audience_is_refused() {
    let s = setup().await;
    let mut c = claims("alice", "scans:read");
    c["aud"] = json!("https://other-server.test/mcp");
    assert_invalid_token(
        &send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await,
    );
    // A list that names this server is fine, and so is a differently cased host.
    c["aud"] = json!(["https://other-server.test", "https://MRTD.test/mcp"]);
    let reply = send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await;
    assert_eq!(reply.status, StatusCode::OK);
    // No audience at all is refused.
    c.as_object_mut().unwrap().remove("aud");
    assert_invalid_token(
        &send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await,
    );
}

#[tokio::test]
async fn wrong_issuer_is_refused() {
    let s = setup().await;
    let mut c = claims("alice", "scans:read");
    c["iss"] = json!("https://issuer.test/");
    assert_invalid_token(
        &send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await,
    );
}

#[tokio::test]
async fn expired_and_not_yet_valid_tokens_are_refused_with_small_leeway() {
    let s = setup().await;
    let mut c = claims("alice", "scans:read");
    c["exp"] = json!(now() - 120);
    let reply = send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await;
    assert_invalid_token(&reply);
    assert!(reply.header("www-authenticate").contains("expired"));
    // Ten seconds of clock skew are tolerated.
    c["exp"] = json!(now() - 10);
    let reply = send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await;
    assert_eq!(reply.status, StatusCode::OK);
    c["exp"] = json!(now() + 300);
    c["nbf"] = json!(now() + 600);
    assert_invalid_token(
        &send(&s.app, tool_call("whoami", json!({}), Some(&s.key.sign(&c)))).await,
    );
}

#[tokio::test]
async fn alg_none_is_refused() {
    let s = setup().await;
    let header = b64(br#"{"alg":"none","typ":"JWT","kid":"key-1"}"#);
    let payload = b64(claims("alice", "scans:read scans:write").to_string().as_bytes());
    for token in [format!("{header}.{payload}."), format!("{header}.{payload}")] {
        assert_invalid_token(&send(&s.app, tool_call("whoami", json!({}), Some(&token))).await);
    }
}

#[tokio::test]
async fn hmac_signed_with_the_public_key_is_refused() {
    let s = setup().await;
    // The classic confusion: HS256 keyed with the public key text the attacker can read.
    let public = serde_json::to_vec(&s.key.jwk).unwrap();
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("key-1".to_owned());
    let c = claims("alice", "scans:read scans:write");
    for secret in [public.clone(), s.key.jwk_x().into_bytes()] {
        let token =
            jsonwebtoken::encode(&header, &c, &EncodingKey::from_secret(&secret).unwrap()).unwrap();
        assert_invalid_token(&send(&s.app, tool_call("whoami", json!({}), Some(&token))).await);
    }
}

#[tokio::test]
async fn unknown_kid_and_foreign_key_are_refused() {
    let s = setup().await;
    let stranger = SigningKey::generate("key-2");
    let token = stranger.sign(&claims("alice", "scans:read"));
    assert_invalid_token(&send(&s.app, tool_call("whoami", json!({}), Some(&token))).await);
    // A foreign key presenting the known kid fails on the signature.
    let impostor = SigningKey::generate("key-1");
    let token = impostor.sign(&claims("alice", "scans:read"));
    assert_invalid_token(&send(&s.app, tool_call("whoami", json!({}), Some(&token))).await);
    // A tampered payload fails too.
    let good = s.key.sign(&claims("alice", "scans:read"));
    let mut parts: Vec<String> = good.split('.').map(str::to_owned).collect();
    parts[1] = b64(claims("mallory", "scans:read scans:write").to_string().as_bytes());
    assert_invalid_token(
        &send(&s.app, tool_call("whoami", json!({}), Some(&parts.join(".")))).await,
    );
}

#[tokio::test]
async fn missing_scope_gets_403_naming_the_scope() {
    let s = setup().await;
    let reader = s.key.sign(&claims("alice", "scans:read"));
    let reply =
        send(&s.app, tool_call("scan_document", json!({"image_base64": "AAAA"}), Some(&reader)))
            .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let challenge = reply.header("www-authenticate");
    assert!(challenge.contains("error=\"insufficient_scope\""), "{challenge}");
    assert!(challenge.contains("scope=\"scans:write\""), "{challenge}");
    assert!(challenge.contains(&format!("resource_metadata=\"{METADATA_URL}\"")), "{challenge}");
    assert_eq!(reply.body["id"], 7);

    let nobody = s.key.sign(&claims("alice", "profile"));
    let reply = send(&s.app, tool_call("get_scan", json!({"scan_id": "x"}), Some(&nobody))).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(reply.header("www-authenticate").contains("scope=\"scans:read\""));
    let reply = send(
        &s.app,
        mcp_request("resources/read", json!({"uri": "mrtd://scans/scn_1"}), Some(&nobody)),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    // Tools that touch no scans need only a valid token.
    let reply = send(&s.app, mcp_request("tools/list", json!({}), Some(&nobody))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    // scans:write implies scans:read; scp lists are read as well as scope strings.
    let mut c = claims("alice", "");
    c["scp"] = json!(["scans:write"]);
    let writer = s.key.sign(&c);
    let reply = send(&s.app, tool_call("get_scan", json!({"scan_id": "x"}), Some(&writer))).await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn another_principals_scan_is_not_found() {
    let s = setup().await;
    let alice = s.key.sign(&claims("alice", "scans:read scans:write"));
    let bob = s.key.sign(&claims("bob", "scans:read scans:write"));
    let made =
        send(&s.app, tool_call("scan_document", json!({"image_base64": "AAAA"}), Some(&alice)))
            .await;
    assert_eq!(made.status, StatusCode::OK, "{:?}", made.body);
    let id = made.tool_text().to_owned();
    assert!(id.starts_with("scn_"));
    let theirs = send(&s.app, tool_call("get_scan", json!({"scan_id": id}), Some(&bob))).await;
    assert!(theirs.tool_failed(), "{:?}", theirs.body);
    assert!(theirs.tool_text().contains("No scan"));
    let mine = send(&s.app, tool_call("get_scan", json!({"scan_id": id}), Some(&alice))).await;
    assert!(!mine.tool_failed(), "{:?}", mine.body);
    assert!(mine.tool_text().contains("oauth:https://issuer.test#alice"));
}

#[tokio::test]
async fn foreign_origin_is_refused_even_with_a_valid_token() {
    let s = setup().await;
    let token = s.key.sign(&claims("alice", "scans:read"));
    let mut request = tool_call("whoami", json!({}), Some(&token));
    request.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    let reply = send(&s.app, request).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(reply.header("access-control-allow-origin").is_empty());
    // Without a token the Origin is still checked first.
    let mut request = tool_call("whoami", json!({}), None);
    request.headers_mut().insert("origin", "https://evil.example".parse().unwrap());
    assert_eq!(send(&s.app, request).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn metadata_document_names_the_resource_issuer_and_scopes() {
    let s = setup().await;
    for path in
        ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]
    {
        let request =
            Request::get(path).header("host", "127.0.0.1:8080").body(Body::empty()).unwrap();
        let reply = send(&s.app, request).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.body["resource"], RESOURCE);
        assert_eq!(reply.body["authorization_servers"], json!([ISSUER]));
        assert_eq!(reply.body["scopes_supported"], json!(["scans:read", "scans:write"]));
        assert_eq!(reply.body["bearer_methods_supported"], json!(["header"]));
        let scopes = reply.body["scopes_supported"].as_array().unwrap();
        assert!(!scopes.contains(&json!("offline_access")));
    }
}

/// Serves `body` at `/jwks` on a loopback port.
async fn serve_jwks(body: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let router = Router::new().route("/jwks", get(move || async move { body }));
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{address}/jwks")
}

#[tokio::test]
async fn jwks_from_a_loopback_url_when_explicitly_allowed() {
    let key = SigningKey::generate("url-key");
    let url = serve_jwks(jwks(&[&key])).await;

    // Plain http is refused outright without the permission...
    assert!(matches!(JwksSource::parse(&url, false), Err(JwksError::PlainHttp)));
    // ...and so is a loopback address, checked after resolving.
    let https = url.replace("http://127.0.0.1", "https://localhost");
    let source = JwksSource::Url { url: https.parse().unwrap(), allow_private: false };
    let refused = verifier_from(source).await;
    assert!(
        matches!(refused, Err(OAuthConfigError::Jwks(JwksError::PrivateAddress(_)))),
        "{refused:?}"
    );

    let verifier = verifier_from(JwksSource::parse(&url, true).unwrap()).await.expect("verifier");
    let app = guarded(verifier);
    let token = key.sign(&claims("carol", "scans:read"));
    let reply = send(&app, tool_call("whoami", json!({}), Some(&token))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.tool_text(), "oauth:https://issuer.test#carol");
}

#[tokio::test]
async fn over_a_real_socket() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = setup().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let app = s.app.clone();
    tokio::spawn(mrtd_server::http::serve(listener, app, std::future::pending()));

    let raw = |token: Option<String>| async move {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "whoami", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string();
        let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: {MODERN}\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: whoami\r\n{auth}Content-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).await.unwrap();
        text
    };
    let refused = raw(None).await;
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    let challenge = refused.to_ascii_lowercase();
    assert!(challenge.contains("www-authenticate: bearer "), "{refused}");
    assert!(challenge.contains("resource_metadata="), "{refused}");
    assert!(challenge.contains("scope=\"scans:read scans:write\""), "{refused}");
    let accepted = raw(Some(s.key.sign(&claims("dave", "")))).await;
    assert!(accepted.starts_with("HTTP/1.1 200"), "{accepted}");
    assert!(accepted.contains("oauth:https://issuer.test#dave"), "{accepted}");
}

#[tokio::test]
async fn a_jwt_that_is_not_an_access_token_is_refused_unless_allowed() {
    let s = setup().await;
    let claims = claims("alice", "scans:read");
    for typ in [None, Some("JWT"), Some("id+jwt")] {
        let token = s.key.sign_typed(&claims, typ);
        let reply = send(&s.app, tool_call("whoami", json!({}), Some(&token))).await;
        assert_invalid_token(&reply);
        assert!(reply.header("www-authenticate").contains("at+jwt"), "{typ:?}");
    }
    let spelled = s.key.sign_typed(&claims, Some("application/AT+JWT"));
    let reply = send(&s.app, tool_call("whoami", json!({}), Some(&spelled))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);

    // An operator whose issuer omits `typ` may accept such tokens explicitly.
    let path = s._dir.path().join("jwks.json");
    let lenient = TokenVerifier::new(OAuthConfig {
        resource: RESOURCE.to_owned(),
        issuer: ISSUER.to_owned(),
        jwks: JwksSource::File(path),
        accept_untyped: true,
    })
    .await
    .expect("verifier");
    let app = guarded(lenient);
    let token = s.key.sign_typed(&claims, Some("JWT"));
    let reply = send(&app, tool_call("whoami", json!({}), Some(&token))).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    assert_eq!(reply.tool_text(), "oauth:https://issuer.test#alice");
}
