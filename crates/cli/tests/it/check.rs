//! `mrtd check` through the real binary: answers without fields, the printed page against the
//! MRZ, exit statuses, standard input and the errors in the command's own flags.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const TD3_LINE1: &str = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<";
const TD3_LINE2: &str = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";

fn mrtd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtd")).args(args).output().expect("mrtd runs")
}

fn check(args: &[&str]) -> Output {
    let mut all = vec!["check", TD3_LINE1, TD3_LINE2];
    all.extend_from_slice(args);
    mrtd(&all)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn answers_come_without_the_documents_fields() {
    let output =
        check(&["--min-age", "18", "--nationality-in", "D,UTO", "--valid-on", "2012-04-16"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the passport expired the day before: {}",
        stderr(&output)
    );
    let answers: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(
        answers,
        json!({ "check_digits_valid": true, "min_age": true, "valid_on": false, "nationality_in": true })
    );
    let yes = check(&["--min-age", "18", "--valid-on", "2012-04-15"]);
    assert_eq!(yes.status.code(), Some(0), "{}", stderr(&yes));
    let text = String::from_utf8_lossy(&yes.stdout);
    for field in ["ERIKSSON", "L898902C3", "1974"] {
        assert!(!text.contains(field), "no document field in the answers: {text}");
    }
}

#[test]
fn the_printed_page_is_compared_with_the_mrz() {
    let genuine = check(&[
        "--printed-surname",
        "Eriksson",
        "--printed-given-names",
        "Anna Maria",
        "--printed-birth-date",
        "12 AUG/AOÛT 74",
        "--printed-document-number",
        "L898902C3",
        "--printed-sex",
        "F/F",
    ]);
    assert_eq!(genuine.status.code(), Some(0), "{}", stderr(&genuine));
    let answers: Value = serde_json::from_slice(&genuine.stdout).unwrap();
    assert_eq!(answers["viz_matches_mrz"], true, "{answers}");

    let edited = check(&[
        "--printed-surname",
        "Eriksen",
        "--printed-birth-date",
        "12.08.1974",
        "--format",
        "table",
    ]);
    assert_eq!(edited.status.code(), Some(1), "a page that differs is not a yes");
    let table = String::from_utf8_lossy(&edited.stdout);
    assert!(table.contains("printed page agrees  no"), "{table}");
    assert!(table.lines().any(|l| l.trim() == "surname            differs"), "{table}");
    assert!(table.lines().any(|l| l.trim() == "birth_date         agrees"), "{table}");
}

#[test]
fn lines_come_from_standard_input_too() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mrtd"))
        .args(["check", "--printed-surname", "Eriksson", "--format", "ndjson"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{TD3_LINE1}\n{TD3_LINE2}").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap()["printed_agreement"]["surname"],
        "agrees"
    );
}

#[test]
fn bad_questions_are_named_in_the_commands_flags() {
    for (args, named) in [
        (vec!["--printed-birth-date", "soon"], "--printed-birth-date"),
        (vec!["--printed-sex", "Q"], "--printed-sex"),
        (vec!["--min-age", "200"], "--min-age"),
        (vec![], "--min-age, --valid-on, --nationality-in, --printed-*"),
        (vec!["--min-age", "18", "--format", "csv"], "csv"),
    ] {
        let output = check(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains(named), "{args:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let not_mrz = mrtd(&["check", "hello", "world", "--min-age", "18"]);
    assert_eq!(not_mrz.status.code(), Some(1));
    assert!(stderr(&not_mrz).contains("not an MRZ"), "{}", stderr(&not_mrz));
}
