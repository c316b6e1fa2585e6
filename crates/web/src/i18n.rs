//! The page's words in English and Brazilian Portuguese.
//!
//! The language comes from `?lang=` (the page's switch), else from `Accept-Language`, else
//! English. The HTML's `{{t:KEY}}` placeholders are filled on the server; the script gets
//! the same table for its language as JSON in the page, so every word a person reads (field
//! names, verdicts, advice for each diagnostic code, correction reasons) is translated and
//! no raw code reaches them.

use http::HeaderMap;
use serde_json::{Map, Value};

/// A language the page speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    En,
    PtBr,
}

impl Lang {
    /// The BCP 47 tag, for `lang` and `Content-Language`.
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::PtBr => "pt-BR",
        }
    }

    fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "pt" => Some(Lang::PtBr),
            _ => None,
        }
    }
}

/// The page's language: `?lang=` first, then the best `Accept-Language` we speak.
pub(crate) fn choose(query: Option<&str>, headers: &HeaderMap) -> Lang {
    let asked = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|pair| pair.strip_prefix("lang=").and_then(Lang::from_tag));
    if let Some(lang) = asked {
        return lang;
    }
    let Some(accept) = headers.get(http::header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok())
    else {
        return Lang::En;
    };
    let mut best: Option<(f32, Lang)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let tag = parts.next().unwrap_or_default();
        let quality = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if let Some(lang) = Lang::from_tag(tag)
            && quality > 0.0
            && best.is_none_or(|(q, _)| quality > q)
        {
            best = Some((quality, lang));
        }
    }
    best.map_or(Lang::En, |(_, lang)| lang)
}

/// Fills the `{{t:KEY}}` placeholders of `page` with the texts of `lang`.
pub(crate) fn fill(page: &str, lang: Lang) -> String {
    let mut out = String::with_capacity(page.len());
    let mut rest = page;
    while let Some(start) = rest.find("{{t:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 4..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        out.push_str(&html_escape(text(&after[..end], lang)));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Every text of `lang`, as the JSON object the script reads (`<` escaped, so that it can
/// sit inside a `<script>` element).
pub(crate) fn messages_json(lang: Lang) -> String {
    let map: Map<String, Value> = TEXTS
        .iter()
        .map(|(key, en, pt)| {
            let text = if lang == Lang::PtBr { pt } else { en };
            ((*key).to_owned(), Value::String((*text).to_owned()))
        })
        .collect();
    Value::Object(map).to_string().replace('<', "\\u003c")
}

fn text(key: &str, lang: Lang) -> &'static str {
    TEXTS.iter().find(|(k, _, _)| *k == key).map_or("", |(_, en, pt)| match lang {
        Lang::En => en,
        Lang::PtBr => pt,
    })
}

/// Text made safe inside HTML elements and double-quoted attributes.
pub(crate) fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

mod texts;
use texts::TEXTS;

#[cfg(test)]
mod tests;
