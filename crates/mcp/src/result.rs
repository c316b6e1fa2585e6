//! The document result shape shared by `scan_document`, `parse_mrz` and `get_scan`.

use mrtd_engine::ImageReading;
use mrtd_mrz::Reading;
use serde_json::{Map, Value, json};

/// Builds the result object for an image read.
pub(crate) fn from_image(image: &ImageReading) -> Value {
    let reading = image.reading.as_ref().and_then(|r| serde_json::to_value(r).ok());
    let mut object = reading_object(reading);
    object.insert("status".into(), serde_json::to_value(image.status).unwrap_or(Value::Null));
    object.insert(
        "diagnostics".into(),
        serde_json::to_value(&image.diagnostics).unwrap_or_else(|_| json!([])),
    );
    object.insert("rotation_degrees".into(), json!(image.rotation_degrees));
    object.insert(
        "region".into(),
        image
            .region
            .map(|corners| json!(corners.iter().map(|(x, y)| json!([x, y])).collect::<Vec<_>>()))
            .unwrap_or(Value::Null),
    );
    object.insert(
        "image".into(),
        json!({
            "width": image.image_width,
            "height": image.image_height,
            "format": image.image_format,
        }),
    );
    object.insert("timing_ms".into(), json!((image.timing_ms * 10.0).round() / 10.0));
    Value::Object(object)
}

/// Builds the result object for typed or pasted MRZ text.
pub(crate) fn from_text(reading: &Reading) -> Value {
    let value = serde_json::to_value(reading).ok();
    let mut object = reading_object(value);
    let status = if reading.valid { "read" } else { "partial" };
    object.insert("status".into(), json!(status));
    object.insert("diagnostics".into(), json!([]));
    Value::Object(object)
}

fn reading_object(reading: Option<Value>) -> Map<String, Value> {
    match reading {
        Some(Value::Object(map)) => map,
        _ => {
            let mut map = Map::new();
            map.insert("format".into(), Value::Null);
            map.insert("lines".into(), json!([]));
            map.insert("valid".into(), json!(false));
            map.insert("fields".into(), Value::Null);
            map.insert("checks".into(), json!([]));
            map.insert("corrections".into(), json!([]));
            map.insert("warnings".into(), json!([]));
            map
        }
    }
}

/// A one-line summary for the text content, without any document fields.
pub(crate) fn summary(result: &Value) -> String {
    let status = result["status"].as_str().unwrap_or("unknown");
    let format = result["format"].as_str().unwrap_or("no format");
    let valid = result["valid"].as_bool().unwrap_or(false);
    let n_corrections = result["corrections"].as_array().map_or(0, Vec::len);
    let diagnostics: Vec<&str> = result["diagnostics"]
        .as_array()
        .map(|items| items.iter().filter_map(|d| d["message"].as_str()).collect())
        .unwrap_or_default();
    let mut text = match status {
        "read" => format!(
            "Read a {format} MRZ; check digits {}; {n_corrections} correction(s).",
            if valid { "all verified" } else { "not all verified" }
        ),
        "partial" => format!("Found a {format} MRZ but could not read it with confidence."),
        "no_mrz" => "No machine readable zone was found.".to_owned(),
        other => format!("Status: {other}."),
    };
    if !diagnostics.is_empty() {
        text.push(' ');
        text.push_str(&diagnostics.join(" "));
    }
    if let Some(id) = result["scan_id"].as_str() {
        text.push_str(&format!(" Kept as scan {id}."));
    }
    text
}
