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
    schema
}
