//! The visual zone through REST: asked for in the query (the photo as the body) or as a form
//! field, answered as the OpenAPI document describes it, refused when the flag is no boolean.

use crate::support;

use support::{OpenApi, request};

/// The German specimen passport, whose fields are labelled in three languages.
fn german() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/images/100_pass-bdr.jpg");
    std::fs::read(path).expect("the specimen exists")
}

/// A multipart form of `fields` (name, bytes), with its content type.
fn form(fields: &[(&str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "mrtd-visual-zone-boundary";
    let mut body = Vec::new();
    for (name, bytes) in fields {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        body.extend_from_slice(
            format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\n\r\n")
                .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_visual_zone_is_read_when_the_query_or_the_form_asks_for_it() {
    let server = support::start().await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;
    let photo = german();
    let jpeg = ("Content-Type", "image/jpeg");

    let read = request(addr, "POST", "/v1/scans?visual_zone=true", &[jpeg], &photo).await;
    api.check("POST", "/v1/scans", &read);
    assert_eq!(read.status, 200, "{}", read.text());
    let zone = &read.json()["visual_zone"];
    assert_eq!(zone["fields"]["surname"]["value"], "MUSTERMANN", "{zone}");
    assert_eq!(zone["fields"]["date_of_issue"]["value"], "22.02.2008", "{zone}");
    assert_eq!(zone["fields"]["issuing_authority"]["value"], "BUNDESDRUCKEREI", "{zone}");
    assert_eq!(zone["matches_mrz"], true, "{zone}");

    let (content_type, body) = form(&[("image", &photo), ("visual_zone", b"1")]);
    let formed =
        request(addr, "POST", "/v1/scans", &[("Content-Type", content_type.as_str())], &body).await;
    api.check("POST", "/v1/scans", &formed);
    assert_eq!(formed.json()["visual_zone"]["fields"]["place_of_birth"]["value"], "BERLIN");

    let plain = request(addr, "POST", "/v1/scans", &[jpeg], &photo).await;
    assert!(plain.json().get("visual_zone").is_none(), "read without being asked");

    let refused = request(addr, "POST", "/v1/scans?visual_zone=maybe", &[jpeg], &photo).await;
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(refused.text().contains("visual_zone"), "{}", refused.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_sent_on_both_sides_gives_the_fields_its_front_prints() {
    let server = support::start().await;
    let addr = server.addr;
    let api = OpenApi::fetch(addr).await;
    let side = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sides");
        std::fs::read(path.join(name)).expect("the side's photo exists")
    };
    // The German specimen's page cut in two: its printed fields, then its MRZ.
    let (front, back) = (side("portrait-side.jpg"), side("mrz-side.jpg"));
    let (content_type, body) =
        form(&[("image", &front), ("other_side", &back), ("visual_zone", b"true")]);
    let read =
        request(addr, "POST", "/v1/scans", &[("Content-Type", content_type.as_str())], &body).await;
    api.check("POST", "/v1/scans", &read);
    assert_eq!(read.status, 200, "{}", read.text());
    let result = read.json();
    assert_eq!(result["status"], "read", "{result}");
    assert_eq!(result["other_side"]["photo"], 1, "the front has no MRZ");
    let zone = &result["visual_zone"];
    assert_eq!(zone["fields"]["surname"]["value"], "MUSTERMANN", "{zone}");
    assert_eq!(zone["fields"]["surname"]["other_side"], true, "{zone}");
    assert_eq!(zone["fields"]["birth_date"]["value"], "12.08.1964", "{zone}");
    assert_eq!(zone["agreement"]["birth_date"], "agrees", "{zone}");
    assert_eq!(zone["matches_mrz"], true, "{zone}");
}
