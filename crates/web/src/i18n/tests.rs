use super::*;

#[test]
fn the_query_wins_then_the_best_accepted_language() {
    let headers = |value: &str| {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::ACCEPT_LANGUAGE, value.parse().unwrap());
        headers
    };
    assert_eq!(choose(None, &HeaderMap::new()), Lang::En);
    assert_eq!(choose(None, &headers("pt-BR,pt;q=0.9,en;q=0.8")), Lang::PtBr);
    assert_eq!(choose(None, &headers("de-DE, en;q=0.5, pt;q=0.7")), Lang::PtBr);
    assert_eq!(choose(None, &headers("pt;q=0, en")), Lang::En);
    assert_eq!(choose(None, &headers("fr")), Lang::En);
    assert_eq!(choose(Some("lang=en"), &headers("pt-BR")), Lang::En);
    assert_eq!(choose(Some("x=1&lang=pt-BR"), &HeaderMap::new()), Lang::PtBr);
}

#[test]
fn every_key_has_both_languages_and_every_placeholder_is_known() {
    for (key, en, pt) in TEXTS {
        assert!(!en.is_empty() && !pt.is_empty(), "{key}");
        assert_eq!(TEXTS.iter().filter(|(k, _, _)| k == key).count(), 1, "{key} twice");
    }
    let page = include_str!("../../assets/index.html");
    for piece in page.split("{{t:").skip(1) {
        let key = &piece[..piece.find("}}").unwrap()];
        assert!(TEXTS.iter().any(|(k, _, _)| *k == key), "the page uses an unknown key {key}");
    }
    assert!(messages_json(Lang::PtBr).contains("Sobrenome"));
    assert!(!messages_json(Lang::En).contains('<'));
}

/// The codes of the table in `docs/rest.md` (its `<a id="CODE">` anchors).
fn documented_codes() -> Vec<String> {
    let docs = include_str!("../../docs/rest.md");
    docs.split("<a id=\"")
        .skip(1)
        .map(|piece| piece[..piece.find('"').unwrap()].to_owned())
        .collect()
}

/// The codes `error.rs` gives an error: the string right after a `StatusCode::` constant.
fn emitted_codes() -> Vec<String> {
    let source = include_str!("../error.rs");
    let mut codes = Vec::new();
    for piece in source.split("StatusCode::").skip(1) {
        let after = piece.trim_start_matches(|c: char| c.is_ascii_uppercase() || c == '_');
        let Some(rest) = after.strip_prefix(',') else { continue };
        if let Some(quoted) = rest.trim_start().strip_prefix('"') {
            codes.push(quoted[..quoted.find('"').unwrap()].to_owned());
        }
    }
    codes
}

#[test]
fn every_error_code_is_documented_and_has_words_in_both_languages() {
    let mut documented = documented_codes();
    documented.sort();
    let mut known: Vec<String> =
        crate::error::CODES.iter().map(|code| (*code).to_owned()).collect();
    known.sort();
    assert_eq!(documented, known, "docs/rest.md's table and error::CODES differ");
    let emitted = emitted_codes();
    assert!(emitted.len() >= 10, "found too few codes in error.rs: {emitted:?}");
    for code in &emitted {
        assert!(known.contains(code), "error.rs emits {code}, which is not in error::CODES");
    }
    for code in &known {
        let key = format!("e_{code}");
        assert!(TEXTS.iter().any(|(k, _, _)| *k == key), "the page has no words for {code}");
    }
    // The script looks the words up by the code the server sends.
    let script = include_str!("../../assets/app.js");
    assert!(script.contains("t(\"e_\" + code)"), "app.js does not translate error codes");
}

#[test]
fn every_icao_special_code_has_a_name_in_both_languages() {
    let special = [
        "D", "GBD", "GBN", "GBO", "GBP", "GBS", "UNO", "UNA", "UNK", "XBA", "XIM", "XCC", "XCE",
        "XCO", "XEC", "XPO", "XES", "XMP", "XOM", "XDC", "XXA", "XXB", "XXC", "XXX", "EUE", "RKS",
        "UTO",
    ];
    for code in special {
        let key = format!("cc_{code}");
        assert!(TEXTS.iter().any(|(k, _, _)| *k == key), "no name for {code}");
    }
    assert_eq!(text("cc_UTO", Lang::En), "Utopia");
    assert_eq!(text("cc_D", Lang::PtBr), "Alemanha");
}
