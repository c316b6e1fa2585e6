//! The prompt that walks an agent through verifying a traveller's document.

use rmcp::{
    ErrorData,
    model::{
        CacheScope, GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Role,
    },
};
use serde_json::{Map, Value};

const NAME: &str = "verify_traveller_document";
const TEMPLATE: &str = mrtd_service::docs::VERIFY_TRAVELLER_PROMPT;

pub(crate) fn list(modern: bool) -> ListPromptsResult {
    let arguments = vec![
        PromptArgument::new("purpose")
            .with_description("What the check is for, e.g. 'boarding', 'age check over 18'.")
            .with_required(false),
        PromptArgument::new("keep_scan")
            .with_description("'yes' to keep the scan for an hour so later steps can refer to it.")
            .with_required(false),
    ];
    let mut prompt = Prompt::new(
        NAME,
        Some("Walk through reading and verifying a traveller's passport, ID card or visa."),
        Some(arguments),
    );
    prompt.title = Some("Verify a traveller's document".into());
    let result = ListPromptsResult::with_all_items(vec![prompt]);
    if modern {
        result.with_ttl_ms(24 * 60 * 60 * 1000).with_cache_scope(CacheScope::Public)
    } else {
        result
    }
}

pub(crate) fn get(
    name: &str,
    arguments: Option<&Map<String, Value>>,
) -> Result<GetPromptResult, ErrorData> {
    if name != NAME {
        return Err(ErrorData::invalid_params(format!("unknown prompt '{name}'"), None));
    }
    let argument = |key: &str| {
        arguments.and_then(|map| map.get(key)).and_then(Value::as_str).map(str::trim).unwrap_or("")
    };
    let purpose = match argument("purpose") {
        "" => String::new(),
        text => format!(" ({})", text.chars().take(200).collect::<String>()),
    };
    let retain = if argument("keep_scan").eq_ignore_ascii_case("yes") {
        " and retain_hours 1"
    } else {
        " (retain_hours 0: nothing is stored)"
    };
    let text = TEMPLATE.replace("{retain}", retain).replace("{purpose}", &purpose);
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description("Steps to verify a travel document with mrtd"))
}
