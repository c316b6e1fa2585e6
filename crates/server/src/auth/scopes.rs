//! Which scopes a request needs, read from the JSON-RPC message before it is dispatched.
//!
//! The guard knows no tool, resource or REST operation by name: the composition hands it
//! [`AccessRules`], which the crates that define the tools and routes declare. Only
//! `method`, `params.name`, `params.uri` and the names of `params.arguments` are read;
//! everything else is skipped without being built. A body that cannot be read this way
//! but is still JSON needs every scope, so that a message the protocol layer would accept
//! can never get through with less than it should.

use std::{borrow::Cow, collections::BTreeSet, fmt};

use http::Method;
use serde::{
    Deserialize, Deserializer,
    de::{IgnoredAny, MapAccess, Visitor},
};

use super::{SCOPE_READ, SCOPE_WRITE};
use crate::observe::RpcMethod;

/// What the operations behind the guard need, declared by the crates that define them.
/// An operation without a rule needs a valid caller and no scope (the protocol layer
/// answers an unknown tool with an error, and runs nothing).
#[derive(Debug, Clone, Default)]
pub struct AccessRules {
    /// The MCP tools.
    pub tools: Vec<ToolRule>,
    /// MCP resources: a URI prefix (compared without case, as schemes and hosts are) and
    /// the scope reading a resource under it needs.
    pub resources: Vec<(String, &'static str)>,
    /// REST operations whose needs differ from the default: `GET` and `HEAD` need
    /// `scans:read`, other methods `scans:write`, and none runs a recognition.
    pub rest: Vec<RestRule>,
    /// The argument of a recognition tool, and the field of a recognition REST body, that
    /// names a URL the server fetches the photo from (`image_url`): with a
    /// [`super::Prefetch`], it is fetched before the request takes a recognition slot.
    pub fetched_argument: Option<&'static str>,
}

/// What calling one MCP tool needs.
#[derive(Debug, Clone)]
pub struct ToolRule {
    /// The tool's name.
    pub name: String,
    /// The scope every call needs, if any.
    pub scope: Option<&'static str>,
    /// A scope needed only when the arguments hold this key (a tool that reads a kept
    /// scan only when it is given its id).
    pub scope_with_argument: Option<(&'static str, &'static str)>,
    /// Whether the call runs a recognition, and so takes a recognition slot.
    pub recognition: bool,
}

/// What one REST operation needs.
#[derive(Debug, Clone)]
pub struct RestRule {
    /// The HTTP method.
    pub method: Method,
    /// The path, without a trailing slash.
    pub path: String,
    /// The scope it needs, if any.
    pub scope: Option<&'static str>,
    /// Whether it runs a recognition.
    pub recognition: bool,
}

/// What a request needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Requirement {
    /// Scopes that must all be granted.
    pub scopes: BTreeSet<&'static str>,
    /// Whether the request runs a recognition (and so needs a global slot).
    pub recognition: bool,
    /// Whether the body is a JSON-RPC batch.
    pub batch: bool,
    /// The id of a single request, for error replies.
    pub id: Option<serde_json::Value>,
    /// The tool a `tools/call` names, when it is one the rules know (the first, in a batch):
    /// a label for the access line that a caller cannot fill with text of its own.
    pub tool: Option<String>,
    /// The URL a recognition names in [`AccessRules::fetched_argument`].
    pub fetch: Option<String>,
    /// The metrics label of an MCP body's JSON-RPC method (`batch` for a batch).
    pub method: Option<RpcMethod>,
}

/// What the guard reads of a message; strings are borrowed from the body where they hold
/// no escapes, so a plain request is read without allocating. (serde borrows a `Cow` only
/// where it is the field's whole type; inside an `Option` it would copy, so the strings
/// are [`Borrowed`].)
#[derive(Deserialize)]
struct Message<'a> {
    id: Option<serde_json::Value>,
    #[serde(borrow)]
    method: Option<Borrowed<'a>>,
    #[serde(borrow)]
    params: Option<Params<'a>>,
}

/// A message's `method` alone, for a message that does not read as a [`Message`].
#[derive(Deserialize)]
struct MethodAlone<'a> {
    #[serde(borrow)]
    method: Option<Borrowed<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    name: Option<Borrowed<'a>>,
    #[serde(borrow)]
    uri: Option<Borrowed<'a>>,
    #[serde(borrow)]
    arguments: Option<ArgumentNames<'a>>,
}

/// The names of a call's arguments, with the values that are short strings (a URL, not a
/// photo) and the others skipped; anything but an object fails.
struct ArgumentNames<'a>(Vec<(Cow<'a, str>, Option<Cow<'a, str>>)>);

impl ArgumentNames<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    fn short_string(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).and_then(|(_, value)| value.as_deref())
    }
}

/// Longest argument value kept by [`ArgumentNames`]: longer strings are skipped unread.
const SHORT_STRING: usize = 8 * 1024;

/// A value that is kept when it is a short string and skipped otherwise.
struct ShortString<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for ShortString<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Short;
        impl<'de> Visitor<'de> for Short {
            type Value = ShortString<'de>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("any value")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(ShortString((text.len() <= SHORT_STRING).then_some(Cow::Borrowed(text))))
            }
            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(ShortString((text.len() <= SHORT_STRING).then(|| Cow::Owned(text.to_owned()))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ShortString(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ShortString(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ShortString(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ShortString(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(ShortString(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ShortString(None))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ShortString(None))
            }
        }
        deserializer.deserialize_any(Short)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ArgumentNames<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> Visitor<'de> for Names {
            type Value = ArgumentNames<'de>;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("an object of arguments")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut names = Vec::new();
                while let Some(name) = map.next_key::<Borrowed<'de>>()? {
                    let value = map.next_value::<ShortString<'de>>()?;
                    names.push((name.0, value.0));
                }
                Ok(ArgumentNames(names))
            }
        }
        deserializer.deserialize_map(Names)
    }
}

/// A string borrowed from the input where it holds no escapes.
struct Borrowed<'a>(Cow<'a, str>);

impl Borrowed<'_> {
    fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Borrowed<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Inner<'a>(#[serde(borrow)] Cow<'a, str>);
        Inner::deserialize(deserializer).map(|inner| Borrowed(inner.0))
    }
}

impl AccessRules {
    /// The requirement of an MCP request body, with its method's metrics label. `None` when
    /// the body is not JSON at all, which the endpoint answers with a parse error without
    /// dispatching anything.
    pub(super) fn for_mcp_body(&self, bytes: &[u8]) -> Option<Requirement> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        let batch = first == Some(&b'[');
        let method = batch.then_some(RpcMethod::BATCH);
        let mut requirement = Requirement { batch, method, ..Requirement::default() };
        let parsed = if batch {
            serde_json::from_slice::<Vec<Message<'_>>>(bytes).map(|mut messages| {
                for message in &messages {
                    self.add_message(&mut requirement, message);
                }
                if let [single] = messages.as_mut_slice() {
                    requirement.id = single.id.take();
                }
            })
        } else {
            serde_json::from_slice::<Message<'_>>(bytes).map(|message| {
                self.add_message(&mut requirement, &message);
                requirement.method =
                    Some(RpcMethod::of(message.method.as_ref().map(|m| m.as_str())));
                requirement.id = message.id;
            })
        };
        if parsed.is_err() {
            serde_json::from_slice::<IgnoredAny>(bytes).ok()?;
            if !batch {
                // Rare, and only for the label: a second look for the method alone.
                let alone = serde_json::from_slice::<MethodAlone<'_>>(bytes).ok();
                let method = alone.as_ref().and_then(|m| m.method.as_ref()).map(Borrowed::as_str);
                requirement.method = Some(RpcMethod::of(method));
            }
            requirement.scopes.extend([SCOPE_READ, SCOPE_WRITE]);
            requirement.recognition = true;
        }
        Some(requirement)
    }

    fn add_message(&self, requirement: &mut Requirement, message: &Message<'_>) {
        let params = message.params.as_ref();
        match message.method.as_ref().map(Borrowed::as_str) {
            Some("tools/call") => {
                let name = params.and_then(|p| p.name.as_ref()).map(Borrowed::as_str);
                let Some(rule) = self.tools.iter().find(|rule| Some(rule.name.as_str()) == name)
                else {
                    return;
                };
                requirement.scopes.extend(rule.scope);
                requirement.tool.get_or_insert_with(|| rule.name.clone());
                let arguments = params.and_then(|p| p.arguments.as_ref());
                if let Some((argument, scope)) = rule.scope_with_argument
                    && arguments.is_some_and(|arguments| arguments.has(argument))
                {
                    requirement.scopes.insert(scope);
                }
                requirement.recognition |= rule.recognition;
                if rule.recognition
                    && requirement.fetch.is_none()
                    && let (Some(name), Some(arguments)) = (self.fetched_argument, arguments)
                {
                    requirement.fetch = arguments.short_string(name).map(str::to_owned);
                }
            }
            Some("resources/read" | "resources/subscribe") => {
                let uri = params.and_then(|p| p.uri.as_ref()).map_or("", Borrowed::as_str);
                for (prefix, scope) in &self.resources {
                    if uri.get(..prefix.len()).is_some_and(|head| head.eq_ignore_ascii_case(prefix))
                    {
                        requirement.scopes.insert(scope);
                    }
                }
            }
            _ => {}
        }
    }

    /// The URL a REST recognition's JSON body names in [`AccessRules::fetched_argument`].
    pub(super) fn fetched_url_in_json(&self, body: &[u8]) -> Option<String> {
        let name = self.fetched_argument?;
        let fields = serde_json::from_slice::<ArgumentNames<'_>>(body).ok()?;
        fields.short_string(name).map(str::to_owned)
    }

    /// The requirement of a REST request: a declared rule, or by default `scans:read` for
    /// reads and `scans:write` for changes.
    pub(super) fn for_rest(&self, method: &Method, path: &str) -> Requirement {
        let path = path.trim_end_matches('/');
        if let Some(rule) =
            self.rest.iter().find(|rule| rule.method == *method && rule.path == path)
        {
            return Requirement {
                scopes: rule.scope.into_iter().collect(),
                recognition: rule.recognition,
                ..Requirement::default()
            };
        }
        let scope =
            if matches!(*method, Method::GET | Method::HEAD) { SCOPE_READ } else { SCOPE_WRITE };
        Requirement { scopes: BTreeSet::from([scope]), ..Requirement::default() }
    }
}

/// The needed scopes that `granted` lacks; `scans:write` implies `scans:read`.
pub(super) fn missing(
    granted: &BTreeSet<String>,
    needed: &BTreeSet<&'static str>,
) -> Vec<&'static str> {
    needed
        .iter()
        .copied()
        .filter(|scope| {
            !(granted.contains(*scope) || (*scope == SCOPE_READ && granted.contains(SCOPE_WRITE)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rules like those of a document server: a tool that reads photos, tools that read
    /// and change kept scans, one that reads a kept scan only when given its id.
    fn rules() -> AccessRules {
        let tool = |name: &str, scope, recognition| ToolRule {
            name: name.to_owned(),
            scope,
            scope_with_argument: None,
            recognition,
        };
        AccessRules {
            tools: vec![
                tool("scan", Some(SCOPE_WRITE), true),
                tool("forget", Some(SCOPE_WRITE), false),
                tool("fetch", Some(SCOPE_READ), false),
                ToolRule {
                    scope_with_argument: Some(("scan_id", SCOPE_READ)),
                    ..tool("check", None, false)
                },
            ],
            resources: vec![("mrtd://scans".to_owned(), SCOPE_READ)],
            rest: vec![
                RestRule {
                    method: Method::POST,
                    path: "/v1/scans".to_owned(),
                    scope: Some(SCOPE_WRITE),
                    recognition: true,
                },
                RestRule {
                    method: Method::POST,
                    path: "/v1/parse".to_owned(),
                    scope: None,
                    recognition: false,
                },
            ],
            fetched_argument: Some("image_url"),
        }
    }

    #[test]
    fn a_recognition_names_the_url_it_fetches() {
        let rules = rules();
        let fetch = |body: &str| rules.for_mcp_body(body.as_bytes()).unwrap().fetch;
        let url = "https://example.com/a%20b.jpg";
        assert_eq!(fetch(&call("scan", &format!(r#"{{"image_url":"{url}"}}"#))).unwrap(), url);
        // Escaped, beside other arguments of every kind.
        let escaped = call("scan", r#"{"n":[1,{"a":null}],"image_url":"https:\/\/x\/y","m":true}"#);
        assert_eq!(fetch(&escaped).unwrap(), "https://x/y");
        // Not for a tool that reads no photo, not for a value that is no short string.
        assert_eq!(fetch(&call("fetch", r#"{"image_url":"https://x/y"}"#)), None);
        assert_eq!(fetch(&call("scan", r#"{"image_url":7}"#)), None);
        let long = "x".repeat(SHORT_STRING + 1);
        assert_eq!(fetch(&call("scan", &format!(r#"{{"image_url":"{long}"}}"#))), None);
        assert_eq!(
            rules.fetched_url_in_json(br#"{"image_url":"https://x/y","retain_hours":1}"#).unwrap(),
            "https://x/y"
        );
        assert_eq!(rules.fetched_url_in_json(b"[1]"), None);
    }

    fn scopes(body: &str) -> Vec<&'static str> {
        rules().for_mcp_body(body.as_bytes()).unwrap().scopes.into_iter().collect()
    }

    fn call(name: &str, args: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
        )
    }

    #[test]
    fn tools_map_to_their_declared_scopes() {
        assert_eq!(scopes(&call("scan", r#"{"image_base64":"AAAA"}"#)), [SCOPE_WRITE]);
        assert_eq!(scopes(&call("forget", r#"{"scan_id":"x"}"#)), [SCOPE_WRITE]);
        assert_eq!(scopes(&call("fetch", r#"{"scan_id":"x"}"#)), [SCOPE_READ]);
        assert_eq!(scopes(&call("check", r#"{"scan_id":"x"}"#)), [SCOPE_READ]);
        assert!(scopes(&call("check", r#"{"lines":["a"]}"#)).is_empty());
        assert!(scopes(&call("undeclared", r#"{"lines":["a"]}"#)).is_empty());
        assert!(scopes(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).is_empty());
        assert!(rules().for_mcp_body(call("scan", "{}").as_bytes()).unwrap().recognition);
        assert!(!rules().for_mcp_body(call("fetch", "{}").as_bytes()).unwrap().recognition);
        let none = AccessRules::default();
        assert!(none.for_mcp_body(call("scan", "{}").as_bytes()).unwrap().scopes.is_empty());
    }

    #[test]
    fn escapes_spell_the_same_names() {
        // A method, tool or argument name written with escapes cannot hide from its rule.
        let escaped =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"fo\u0072get"}}"#;
        assert_eq!(scopes(escaped), [SCOPE_WRITE]);
        let argument = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{"scan\u005fid":"x"}}}"#;
        assert_eq!(scopes(argument), [SCOPE_READ]);
        let uri = r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"mrtd:\/\/scans/x"}}"#;
        assert_eq!(scopes(uri), [SCOPE_READ]);
    }

    #[test]
    fn scan_resources_need_read() {
        let read = |uri: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"{uri}"}}}}"#
            )
        };
        assert_eq!(scopes(&read("mrtd://scans/scn_1")), [SCOPE_READ]);
        assert_eq!(scopes(&read("MRTD://Scans/scn_1")), [SCOPE_READ]);
        assert!(scopes(&read("mrtd://docs/photo-guide")).is_empty());
        assert!(scopes(&read("mrtd")).is_empty());
    }

    #[test]
    fn batches_need_the_union_and_odd_json_needs_everything() {
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fetch"}},
                        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"forget"}}]"#;
        let requirement = rules().for_mcp_body(batch.as_bytes()).unwrap();
        assert!(requirement.batch);
        assert_eq!(requirement.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_READ, SCOPE_WRITE]);
        // Duplicate keys do not parse into the struct: fail closed.
        let odd = r#"{"method":"tools/list","method":"tools/call","params":{"name":"forget"}}"#;
        assert_eq!(scopes(odd), [SCOPE_READ, SCOPE_WRITE]);
        // Arguments that are no object cannot be read: fail closed.
        assert_eq!(scopes(&call("check", r#"["scan_id"]"#)), [SCOPE_READ, SCOPE_WRITE]);
        assert!(rules().for_mcp_body(b"not json").is_none());
    }

    #[test]
    fn the_method_label_comes_from_the_same_reading() {
        let label = |body: &str| rules().for_mcp_body(body.as_bytes()).unwrap().method.unwrap();
        let label_str = |body: &str| label(body).as_str();
        assert_eq!(label_str(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#), "tools/list");
        let late =
            r#"{"params":{"method":"ping","x":[1,{"method":"y"}]},"id":"a","method":"tools/call"}"#;
        assert_eq!(label_str(late), "tools/call");
        // Escapes spell the same method, as for the scopes.
        assert_eq!(label_str(r#"{"method":"tools\/list"}"#), "tools/list");
        let tricky = r#"{"a":"\"method\":\"ping","b":"}","method":"prompts/get"}"#;
        assert_eq!(label_str(tricky), "prompts/get");
        // A message the guard cannot read whole still has its method named.
        assert_eq!(label_str(&call("check", r#"["scan_id"]"#)), "tools/call");
        assert_eq!(label(r#"{"method":"evil/one"}"#), RpcMethod::OTHER);
        let long = format!(r#"{{"method":"{}"}}"#, "x".repeat(10_000));
        assert_eq!(label(&long), RpcMethod::OTHER);
        assert_eq!(label(r#"{"a":"method","b":"tools/list"}"#), RpcMethod::INVALID);
        assert_eq!(label(r#"{"method":7}"#), RpcMethod::INVALID);
        assert_eq!(label(r#"{"method":{"a":1}}"#), RpcMethod::INVALID);
        assert_eq!(label(r#"{"id":1}"#), RpcMethod::INVALID);
        assert_eq!(label(r#""tools/list""#), RpcMethod::INVALID);
        assert_eq!(label(r#"[{"method":"ping"}]"#), RpcMethod::BATCH);
        // Not JSON at all (a cut batch too): no requirement, and the guard labels it invalid.
        assert!(rules().for_mcp_body(b"[{\"method\":\"ping\"").is_none());
    }

    #[test]
    fn rest_rules_and_the_default() {
        let rules = rules();
        let post = rules.for_rest(&Method::POST, "/v1/scans");
        assert!(post.recognition);
        assert_eq!(post.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_WRITE]);
        assert!(rules.for_rest(&Method::POST, "/v1/scans/").recognition);
        let parse = rules.for_rest(&Method::POST, "/v1/parse");
        assert!(!parse.recognition && parse.scopes.is_empty(), "parsing needs no scope");
        assert!(!rules.for_rest(&Method::GET, "/v1/scans").recognition);
        assert!(!rules.for_rest(&Method::DELETE, "/v1/scans/scn_1").recognition);
        let get = rules.for_rest(&Method::GET, "/v1/scans/scn_1");
        assert_eq!(get.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_READ]);
        let delete = rules.for_rest(&Method::DELETE, "/v1/scans/scn_1");
        assert_eq!(delete.scopes.into_iter().collect::<Vec<_>>(), [SCOPE_WRITE]);
    }

    #[test]
    fn write_implies_read() {
        let granted: BTreeSet<String> = [SCOPE_WRITE.to_owned()].into();
        assert!(missing(&granted, &BTreeSet::from([SCOPE_READ])).is_empty());
        let granted: BTreeSet<String> = [SCOPE_READ.to_owned()].into();
        assert_eq!(missing(&granted, &BTreeSet::from([SCOPE_READ, SCOPE_WRITE])), [SCOPE_WRITE]);
    }
}
