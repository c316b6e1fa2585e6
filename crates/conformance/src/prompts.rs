//! Prompts and argument completion of the fixture.

use rmcp::{
    ErrorData,
    model::{
        CompleteRequestParams, ContentBlock, GetPromptRequestParams, GetPromptResponse,
        GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Reference,
        ResourceContents, Role,
    },
};

use crate::{
    fixture::{Fixture, Wire},
    media::PNG_1X1,
    mrtr,
};

const SIMPLE: &str = "test_simple_prompt";
const WITH_ARGUMENTS: &str = "test_prompt_with_arguments";
const EMBEDDED_RESOURCE: &str = "test_prompt_with_embedded_resource";
const WITH_IMAGE: &str = "test_prompt_with_image";

fn required(name: &str, description: &str) -> PromptArgument {
    PromptArgument::new(name).with_description(description).with_required(true)
}

/// The prompts offered on `wire`; the MRTR prompt exists only on the 2026 wire.
pub fn listed(wire: Wire) -> Vec<Prompt> {
    let mut prompts = vec![
        Prompt::new(SIMPLE, Some("A prompt without arguments"), None),
        Prompt::new(
            WITH_ARGUMENTS,
            Some("A prompt that repeats its two arguments"),
            Some(vec![required("arg1", "First argument"), required("arg2", "Second argument")]),
        ),
        Prompt::new(
            EMBEDDED_RESOURCE,
            Some("A prompt that embeds the resource it is given"),
            Some(vec![required("resourceUri", "URI of the resource to embed")]),
        ),
        Prompt::new(WITH_IMAGE, Some("A prompt that contains an image"), None),
    ];
    if wire == Wire::Modern {
        prompts.push(Prompt::new(
            mrtr::PROMPT,
            Some("A prompt that asks the client for context before it is built"),
            None,
        ));
    }
    prompts
}

fn argument<'a>(arguments: Option<&'a JsonObject>, name: &str) -> Result<&'a str, ErrorData> {
    arguments.and_then(|arguments| arguments.get(name)).and_then(|value| value.as_str()).ok_or_else(
        || ErrorData::invalid_params(format!("missing required argument '{name}'"), None),
    )
}

/// Answers `prompts/get`.
pub fn get(
    fixture: &Fixture,
    request: GetPromptRequestParams,
    wire: Wire,
) -> Result<GetPromptResponse, ErrorData> {
    let arguments = request.arguments.as_ref();
    let messages = match request.name.as_str() {
        SIMPLE => vec![PromptMessage::new_text(Role::User, "This is a simple prompt for testing.")],
        WITH_ARGUMENTS => {
            let arg1 = argument(arguments, "arg1")?;
            let arg2 = argument(arguments, "arg2")?;
            vec![PromptMessage::new_text(
                Role::User,
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
            )]
        }
        EMBEDDED_RESOURCE => {
            let uri = argument(arguments, "resourceUri")?;
            let resource = ResourceContents::text("Embedded resource content for testing.", uri)
                .with_mime_type("text/plain");
            vec![
                PromptMessage::new(Role::User, ContentBlock::resource(resource)),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ]
        }
        WITH_IMAGE => vec![
            PromptMessage::new(Role::User, ContentBlock::image(PNG_1X1, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ],
        mrtr::PROMPT if wire == Wire::Modern => return mrtr::prompt(fixture, &request),
        other => return Err(ErrorData::invalid_params(format!("unknown prompt: {other}"), None)),
    };
    let mut result = GetPromptResult::new(messages);
    result.description = Some(format!("The {} prompt", request.name));
    Ok(result.into())
}

/// Suggestions for `completion/complete`: prompt arguments of the argument prompt.
pub fn complete(request: &CompleteRequestParams) -> Result<Vec<String>, ErrorData> {
    match &request.r#ref {
        Reference::Prompt(prompt) if prompt.name == WITH_ARGUMENTS => {
            let candidates: &[&str] = match request.argument.name.as_str() {
                "arg1" => &["test", "testValue1", "value1"],
                "arg2" => &["testValue2", "value2"],
                _ => &[],
            };
            let prefix = request.argument.value.as_str();
            Ok(candidates
                .iter()
                .filter(|c| c.starts_with(prefix))
                .map(|c| (*c).to_owned())
                .collect())
        }
        Reference::Prompt(prompt) => {
            Err(ErrorData::invalid_params(format!("unknown prompt: {}", prompt.name), None))
        }
        _ => Ok(Vec::new()),
    }
}
