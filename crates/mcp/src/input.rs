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
