//! Content negotiation: which of the media types a route offers the `Accept` header prefers.

use http::{HeaderMap, header};

/// The offered type the caller prefers most, or `None` when it accepts none of them.
///
/// Follows RFC 9110: each media range has a quality (`q`, default 1); a more specific
/// range (`text/html`) overrides a wider one (`text/*`, `*/*`) for the same type; ties go
/// to the order of `offered`. A missing or empty `Accept` accepts anything, so the first
/// offered type wins.
pub(crate) fn preferred<'a>(headers: &HeaderMap, offered: &[&'a str]) -> Option<&'a str> {
    let accept: Vec<&str> =
        headers.get_all(header::ACCEPT).iter().filter_map(|value| value.to_str().ok()).collect();
    let accept = accept.join(",");
    if accept.trim().is_empty() {
        return offered.first().copied();
    }
    let ranges: Vec<(String, f32)> = accept.split(',').filter_map(parse_range).collect();
    let mut best: Option<(&'a str, f32)> = None;
    for candidate in offered {
        let quality = quality_of(candidate, &ranges);
        if quality > 0.0 && best.is_none_or(|(_, q)| quality > q) {
            best = Some((candidate, quality));
        }
    }
    best.map(|(candidate, _)| candidate)
}

/// One media range and its quality.
fn parse_range(item: &str) -> Option<(String, f32)> {
    let mut parts = item.split(';');
    let range = parts.next()?.trim().to_ascii_lowercase();
    if range.is_empty() {
        return None;
    }
    let mut quality = 1.0;
    for parameter in parts {
        if let Some((name, value)) = parameter.split_once('=')
            && name.trim().eq_ignore_ascii_case("q")
        {
            quality = value.trim().parse::<f32>().unwrap_or(0.0).clamp(0.0, 1.0);
        }
    }
    Some((range, quality))
}

/// The quality the most specific matching range gives `candidate` (0 when none matches).
fn quality_of(candidate: &str, ranges: &[(String, f32)]) -> f32 {
    let (kind, _) = candidate.split_once('/').unwrap_or((candidate, ""));
    let mut best: Option<(u8, f32)> = None;
    for (range, quality) in ranges {
        let specificity = if range == candidate {
            3
        } else if range.strip_suffix("/*") == Some(kind) {
            2
        } else if range == "*/*" {
            1
        } else {
            continue;
        };
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, *quality));
        }
    }
    best.map_or(0.0, |(_, quality)| quality)
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    const OFFERED: [&str; 4] = ["text/plain", "text/html", "application/json", "text/markdown"];

    fn pick(accept: &str) -> Option<&'static str> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(accept).unwrap());
        preferred(&headers, &OFFERED)
    }

    #[test]
    fn browsers_get_html_and_programs_what_they_ask() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert_eq!(pick(browser), Some("text/html"));
        assert_eq!(pick("application/json"), Some("application/json"));
        assert_eq!(pick("text/markdown"), Some("text/markdown"));
        assert_eq!(pick("text/markdown, text/html;q=0.5"), Some("text/markdown"));
        assert_eq!(pick("text/*;q=0.5, application/json"), Some("application/json"));
        assert_eq!(pick("*/*"), Some("text/plain"));
        assert_eq!(pick("text/*"), Some("text/plain"));
        assert_eq!(pick("image/png"), None);
        assert_eq!(pick("text/plain;q=0, */*"), Some("text/html"));
        assert_eq!(preferred(&HeaderMap::new(), &OFFERED), Some("text/plain"));
    }
}
