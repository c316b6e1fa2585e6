//! Reading tool arguments with errors a model can act on.

use serde_json::{Map, Value};

/// A tool's arguments.
pub(crate) struct Arguments<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Arguments<'a> {
    pub(crate) fn new(map: &'a Map<String, Value>) -> Self {
        Arguments { map }
    }

    /// Refuses arguments the tool does not know, so typos do not pass silently.
    pub(crate) fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.map.keys().find(|key| !known.contains(&key.as_str())) {
            Some(key) => {
                Err(format!("unknown argument '{key}'; this tool takes: {}", known.join(", ")))
            }
            None => Ok(()),
        }
    }

    /// A digest of the arguments that does not depend on key order or spacing: what a
    /// `requestState` is bound to, so that it resumes only the call it was issued for.
    pub(crate) fn digest(&self) -> String {
        arguments_digest(Some(self.map))
    }

    pub(crate) fn string(&self, name: &str) -> Result<Option<&'a str>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.as_str())),
            Some(other) => Err(format!("'{name}' must be a string, not {}", kind(other))),
        }
    }

    /// The arguments of the tools that take exactly one `scan_id`.
    pub(crate) fn only_scan_id(&self) -> Result<&'a str, String> {
        self.only(&["scan_id"])?;
        self.required_string("scan_id")
    }

    pub(crate) fn required_string(&self, name: &str) -> Result<&'a str, String> {
        self.string(name)?.ok_or_else(|| format!("'{name}' is required"))
    }

    pub(crate) fn boolean(&self, name: &str) -> Result<Option<bool>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(value)) => Ok(Some(*value)),
            Some(other) => Err(format!("'{name}' must be true or false, not {}", kind(other))),
        }
    }

    pub(crate) fn integer(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => match number.as_i64() {
                Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(format!("'{name}' must be a whole number from {min} to {max}")),
            },
            Some(other) => Err(format!("'{name}' must be a number, not {}", kind(other))),
        }
    }

    pub(crate) fn string_list(&self, name: &str) -> Result<Option<Vec<&'a str>>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().ok_or_else(|| format!("every item of '{name}' must be a string"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(format!("'{name}' must be a list of strings, not {}", kind(other))),
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// SHA-256 (hex) of the arguments in canonical JSON (object keys sorted at every level);
/// no arguments digest like an empty object.
pub(crate) fn arguments_digest(map: Option<&Map<String, Value>>) -> String {
    use sha2::{Digest, Sha256};

    fn write_canonical(value: &Value, out: &mut Vec<u8>) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push(b'{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_canonical(&Value::String(key.clone()), out);
                    out.push(b':');
                    write_canonical(&map[key], out);
                }
                out.push(b'}');
            }
            Value::Array(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_canonical(item, out);
                }
                out.push(b']');
            }
            scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
        }
    }

    let mut canonical = Vec::new();
    match map {
        Some(map) => write_canonical(&Value::Object(map.clone()), &mut canonical),
        None => canonical.extend_from_slice(b"{}"),
    }
    hex::encode(Sha256::digest(&canonical))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_ignores_key_order_but_not_values() {
        let a: Map<String, Value> =
            serde_json::from_str(r#"{"b": 1, "a": {"y": [1, 2], "x": "s"}}"#).unwrap();
        let b: Map<String, Value> =
            serde_json::from_str(r#"{"a": {"x": "s", "y": [1, 2]}, "b": 1}"#).unwrap();
        let c: Map<String, Value> =
            serde_json::from_str(r#"{"a": {"x": "s", "y": [2, 1]}, "b": 1}"#).unwrap();
        assert_eq!(arguments_digest(Some(&a)), arguments_digest(Some(&b)));
        assert_ne!(arguments_digest(Some(&a)), arguments_digest(Some(&c)));
        assert_eq!(arguments_digest(None), arguments_digest(Some(&Map::new())));
    }
}
