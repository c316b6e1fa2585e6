//! JSON Schemas generated from the operations' input and output types: what the MCP tools
//! publish as `inputSchema` and `outputSchema`, and the OpenAPI document as its schemas.

use schemars::{JsonSchema, generate::SchemaSettings};
use serde_json::Value;

/// The schema of what a caller may send as `T`, every subschema inlined, without `$schema`.
pub fn input<T: JsonSchema>() -> Value {
    generate::<T>(SchemaSettings::draft07().for_deserialize())
}

/// The schema of `T` as it is serialised (a field left out when empty is not required),
/// every subschema inlined, without `$schema`.
pub fn output<T: JsonSchema>() -> Value {
    generate::<T>(SchemaSettings::draft07().for_serialize())
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let generator = settings.with(|settings| settings.inline_subschemas = true).into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(object) = &mut schema {
        object.remove("$schema");
    }
    drop_numeric_formats(&mut schema);
    schema
}

/// Removes the `format` schemars gives Rust's number types (`uint`, `int32`, `double`…):
/// JSON Schema defines no such formats, and validators such as the MCP Inspector's warn on
/// every one. The range they stand for stays as `minimum` where it matters (unsigned).
pub fn drop_numeric_formats(schema: &mut Value) {
    const RUST_NUMBER_FORMATS: [&str; 14] = [
        "uint", "uint8", "uint16", "uint32", "uint64", "uint128", "int", "int8", "int16", "int32",
        "int64", "int128", "float", "double",
    ];
    match schema {
        Value::Object(object) => {
            if object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| RUST_NUMBER_FORMATS.contains(&f))
            {
                object.remove("format");
            }
            object.values_mut().for_each(drop_numeric_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_numeric_formats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_schemas_carry_no_format_json_schema_does_not_define() {
        let schemas = [
            output::<crate::result::DocumentResult>(),
            crate::result::schema(),
            crate::chip::schema(),
            output::<crate::kept::ScanList>(),
        ];
        for schema in schemas {
            let text = schema.to_string();
            assert!(!text.contains("\"format\":\"uint"), "{text}");
            assert!(!text.contains("\"format\":\"double\""), "{text}");
            assert!(!text.contains("\"format\":\"int"), "{text}");
        }
        // What stands for the Rust type's range stays.
        assert!(crate::result::schema().to_string().contains("\"minimum\":0"));
        // Formats JSON Schema does define are kept.
        let mut dated =
            serde_json::json!({"type": "string", "format": "date", "items": [{"format": "uint8"}]});
        drop_numeric_formats(&mut dated);
        assert_eq!(dated, serde_json::json!({"type": "string", "format": "date", "items": [{}]}));
    }
}
