//! `mrtd parse` through the real binary: output schema, exit codes, standard input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const TD3_LINE1: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<";
const TD3_LINE2: &str = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";

fn mrtd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtd")).args(args).output().expect("mrtd runs")
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

#[test]
fn parses_a_passport_into_the_documented_fields() {
    let output = mrtd(&["parse", TD3_LINE1, TD3_LINE2, "--today", "2026-11-29"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let reading = json(&output);
    assert_eq!(reading["format"], "TD3");
    assert_eq!(reading["valid"], true);
    assert_eq!(reading["lines"][1], TD3_LINE2);
    let fields = &reading["fields"];
    assert_eq!(fields["document_code"], "P");
    assert_eq!(fields["issuer"], "UTO");
    assert_eq!(fields["document_number"], "L898902C3");
    assert_eq!(fields["nationality"], "UTO");
    assert_eq!(fields["birth_date"], "1974-08-12");
    assert_eq!(fields["expiry_date"], "2012-04-15");
    assert_eq!(fields["sex"], "F");
    assert_eq!(fields["surname"], "ERIKSSON");
    assert_eq!(fields["given_names"], "ANNA MARIA");
    assert_eq!(fields["optional_data"], "ZE184226B");
    let checks = reading["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 5);
    assert!(checks.iter().all(|check| check["status"] == "verified"));
    assert_eq!(reading["corrections"].as_array().unwrap().len(), 0);
    assert_eq!(reading["warnings"].as_array().unwrap().len(), 0);
    assert_eq!(reading["derived"]["expired"], true);
    assert_eq!(reading["derived"]["age_years"], 52);
}

#[test]
fn the_reference_date_changes_centuries_and_expiry() {
    let output = mrtd(&["parse", TD3_LINE1, TD3_LINE2, "--today", "2010-01-01"]);
    let reading = json(&output);
    assert_eq!(reading["derived"]["expired"], false);
    assert_eq!(reading["derived"]["age_years"], 35);
}

#[test]
fn a_refuted_check_digit_exits_one_and_says_so() {
    let damaged = TD3_LINE2.replace("7408122", "7508122");
    let output = mrtd(&["parse", TD3_LINE1, &damaged, "--today", "2026-11-29"]);
    assert_eq!(output.status.code(), Some(1), "a failing check digit is not a reading to use");
    let reading = json(&output);
    assert_eq!(reading["valid"], false);
    assert_eq!(reading["status"], "partial");
    let birth = reading["checks"].as_array().unwrap().iter().find(|c| c["name"] == "birth_date");
    assert_eq!(birth.unwrap()["status"], "refuted");
    // The advice names the check digit, what was typed and what its characters give.
    let advice: Vec<&str> = reading["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "check_digit_failed")
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        advice.contains(
            &"Check digit of the birth date (line 2, column 20): typed 2, the characters it \
              covers give 5. Check your typing of that digit and of line 2, columns 14-19."
        ),
        "{advice:?}"
    );
}

#[test]
fn corrections_are_reported_with_the_lines_as_corrected() {
    let output = mrtd(&[
        "parse",
        "--correct",
        "P<UT0ERIK55ON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO740BIZZF12041S9ZE184226B<<<<<1O",
        "--today",
        "2026-11-29",
    ]);
    let reading = json(&output);
    assert_eq!(reading["valid"], true);
    // The name's `55` stays as typed: no check digit covers a name, and some national
    // codings print digits there; the result says so and is not `read`.
    assert_eq!(reading["lines"][0], TD3_LINE1.replacen("ERIKSSON", "ERIK55ON", 1));
    assert_eq!(reading["lines"][1], TD3_LINE2);
    assert_eq!(reading["status"], "partial");
    assert!(reading["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "unusual_name"));
    let corrections = reading["corrections"].as_array().unwrap();
    assert_eq!(corrections.len(), 7);
    assert_eq!(corrections[0]["line"], 1);
    assert_eq!(corrections[0]["column"], 5);
    assert_eq!(corrections[0]["from"], "0");
    assert_eq!(corrections[0]["to"], "O");
    assert_eq!(corrections[0]["why"], "letter_only_field");
}

#[test]
fn the_russian_internal_passport_is_returned_as_printed_with_its_names_in_cyrillic() {
    let output = mrtd(&[
        "parse",
        "PNRUSIM8REK<<EVGENIQ<ALEKSANDROVI3<<<<<<<<<<",
        "1100000000RUS8209120M<<<<<<<4041217292000<46",
        "--today",
        "2026-11-29",
    ]);
    let reading = json(&output);
    assert_eq!(reading["lines"][0], "PNRUSIM8REK<<EVGENIQ<ALEKSANDROVI3<<<<<<<<<<");
    assert_eq!(reading["lines"][1], "1100000000RUS8209120M<<<<<<<4041217292000<46");
    assert_eq!(reading["valid"], true);
    assert_eq!(reading["status"], "read");
    assert_eq!(reading["fields"]["surname"], "IM8REK");
    assert!(reading["corrections"].as_array().unwrap().is_empty(), "{reading}");
    assert_eq!(reading["national"]["variant"], "rus_internal_passport");
    assert_eq!(reading["national"]["surname_native"], "ИМЯРЕК");
    assert_eq!(reading["national"]["given_names_native"], "ЕВГЕНИЙ АЛЕКСАНДРОВИЧ");
    let warnings = reading["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w["code"] == "national_coding"), "{reading}");
}

#[test]
fn typed_text_is_taken_as_printed_and_corrections_are_only_suggested() {
    // The document number's check digit mistyped (6 for 3): it stays failing, and the
    // change that would satisfy it is offered, not applied.
    let mistyped = TD3_LINE2.replacen("L898902C36", "L898902C46", 1);
    let output = mrtd(&["parse", "--today", "2026-11-29", TD3_LINE1, &mistyped]);
    let reading = json(&output);
    assert_eq!(reading["lines"][1], mistyped.as_str());
    assert_eq!(reading["valid"], false);
    assert_eq!(reading["fields"]["document_number"], "L898902C4");
    assert!(reading["corrections"].as_array().unwrap().is_empty(), "{reading}");
    let suggestions = reading["suggestions"].as_array().expect("suggestions");
    assert!(!suggestions.is_empty(), "{reading}");
    assert!(suggestions.iter().all(|s| s["why"] == "check_digit" && s["proof"].is_array()));
    // Asked to, it corrects as a recogniser's text would be corrected.
    let corrected =
        json(&mrtd(&["parse", "--correct", "--today", "2026-11-29", TD3_LINE1, &mistyped]));
    assert!(!corrected["corrections"].as_array().unwrap().is_empty(), "{corrected}");
    assert!(corrected.get("suggestions").is_none(), "{corrected}");
}

#[test]
fn no_correct_leaves_the_input_alone() {
    let damaged = TD3_LINE2.replacen('0', "O", 1);
    let output = mrtd(&["parse", "--no-correct", "--compact", TD3_LINE1, &damaged]);
    assert_eq!(output.stdout.iter().filter(|b| **b == b'\n').count(), 1);
    let reading = json(&output);
    assert_eq!(reading["lines"][1], damaged.as_str());
    assert_eq!(reading["valid"], false);
}

#[test]
fn three_line_id_cards_and_visas() {
    let output = mrtd(&[
        "parse",
        "I<UTOD23145890<7349<<<<<<<<<<<",
        "3407127M9507122UTO<<<<<<<<<<<2",
        "STEVENSON<<PETER<JOHN<<<<<<<<<",
        "--today",
        "2026-11-29",
    ]);
    let reading = json(&output);
    assert_eq!(reading["format"], "TD1");
    assert_eq!(reading["fields"]["document_number"], "D23145890734");
    assert_eq!(reading["fields"]["expiry_date"], "1995-07-12");
    let output = mrtd(&[
        "parse",
        "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
        "L8988901C4XXX4009078F9612109<<<<<<<<",
    ]);
    let reading = json(&output);
    assert_eq!(reading["format"], "MRVB");
    let composite = reading["checks"].as_array().unwrap().iter().find(|c| c["name"] == "composite");
    assert_eq!(composite.unwrap()["status"], "absent");
}

#[test]
fn lines_can_come_from_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["parse", "--today", "2026-11-29"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("mrtd runs");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "IDFRATEST<NAME<<<<<<<<<<<<<<<<0CHE02\n1710GVA123451ROBERTA<<<<<<<9112311F2")
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let reading = json(&output);
    assert_eq!(reading["format"], "FRA_ID");
    assert_eq!(reading["fields"]["given_names"], "ROBERTA");
}

#[test]
fn ocr_text_on_standard_input_may_have_lines_around_the_zone() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["parse", "--today", "2026-11-29"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("mrtd runs");
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "PASSPORT  UTOPIA\n{TD3_LINE1}\n{TD3_LINE2}\n").unwrap();
    drop(stdin);
    let reading = json(&child.wait_with_output().unwrap());
    assert_eq!(reading["valid"], true);
    assert_eq!(reading["warnings"][0]["code"], "lines_ignored");
}

#[test]
fn input_that_is_not_an_mrz_exits_one_with_one_line() {
    let output = mrtd(&["parse", "hello", "world"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("expected 2 or 3 lines of 30, 36 or 44 characters, got 2 lines of 5, 5")
    );
}

#[test]
fn a_bad_reference_date_exits_two() {
    let output = mrtd(&["parse", TD3_LINE1, TD3_LINE2, "--today", "2026-02-30"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("YYYY-MM-DD"));
}

#[test]
fn too_many_lines_is_a_usage_error() {
    let output = mrtd(&["parse", "A", "B", "C", "D"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn every_real_mrz_in_the_repository_parses_unchanged_and_valid() {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/images/MANIFEST.tsv");
    let text = std::fs::read_to_string(manifest).expect("the manifest");
    let mut rows = text.lines();
    let header: Vec<&str> = rows.next().expect("a header").split('\t').collect();
    let truth_column =
        header.iter().position(|h| *h == "ground_truth_mrz").expect("a truth column");
    let mut parsed = 0;
    for row in rows.filter(|r| !r.trim().is_empty()) {
        let truth = row.split('\t').nth(truth_column).unwrap_or("").trim();
        if truth.is_empty() {
            continue;
        }
        let lines: Vec<&str> = truth.split('|').collect();
        let mut args = vec!["parse", "--format", "json"];
        args.extend(&lines);
        let reading = json(&mrtd(&args));
        assert_eq!(reading["lines"], serde_json::json!(lines), "{truth}");
        assert_eq!(reading["valid"], true, "{truth}");
        parsed += 1;
    }
    assert_eq!(parsed, 12);
}

#[test]
fn the_table_marks_only_the_fields_whose_own_check_fails() {
    // The composite check digit mistyped: every field's own check holds.
    let mut composite_wrong = TD3_LINE2.to_owned();
    composite_wrong.replace_range(43..44, "5");
    let output =
        mrtd(&["parse", "--format", "table", "--today", "2010-01-01", TD3_LINE1, &composite_wrong]);
    assert_eq!(output.status.code(), Some(1), "a check digit fails");
    let table = String::from_utf8(output.stdout).unwrap();
    let row = |label: &str| {
        table.lines().find(|line| line.starts_with(label)).unwrap_or_else(|| panic!("{table}"))
    };
    assert!(
        row("Verdict").contains("NOT VALID") && row("Verdict").contains("composite"),
        "{table}"
    );
    for field in ["Date of birth", "Date of expiry", "Document number"] {
        assert!(row(field).contains("ok (check digit verified)"), "{field}: {table}");
    }
}
