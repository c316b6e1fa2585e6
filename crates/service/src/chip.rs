//! `verify_chip`: Passive Authentication of the chip data an NFC reader app read, optionally
//! matched against the printed MRZ of a kept scan or of lines the caller gives.

use std::time::SystemTime;

pub use mrtd_chip::{ChipReport, MAX_DATA_GROUPS};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::{AppState, Principal, ServiceError, ops};

/// The arguments of `verify_chip` and `POST /v1/chip/verify`, base64 as every front end
/// receives them.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChipArguments {
    /// EF.SOD (the Document Security Object) as read from the chip, base64.
    pub sod_base64: String,
    /// The data group files read from the chip (EF.DG1, EF.DG2, EF.DG14, …), each base64;
    /// each is identified by its own tag, in any order. Without any, EF.SOD alone is checked
    /// (its signature and chain).
    #[serde(default)]
    #[schemars(length(max = MAX_DATA_GROUPS))]
    pub data_groups_base64: Vec<String>,
    /// A kept scan of the same document: DG1 is compared with its printed MRZ.
    pub scan_id: Option<String>,
    /// Or the printed MRZ lines to compare DG1 with.
    #[schemars(length(min = 1, max = 3))]
    pub mrz_lines: Option<Vec<String>>,
    /// Active Authentication: the challenge the reader app sent the chip (8 bytes in ICAO
    /// 9303), base64. Give it with aa_response_base64, and DG15 among the data groups.
    pub aa_challenge_base64: Option<String>,
    /// The chip's answer to that challenge (INTERNAL AUTHENTICATE), base64.
    pub aa_response_base64: Option<String>,
}

impl ChipArguments {
    /// The request these arguments make: every base64 argument decoded, and Active
    /// Authentication given both ways or not at all.
    pub fn into_request(self) -> Result<ChipRequest, ServiceError> {
        ChipRequest::from_base64(
            &self.sod_base64,
            &self.data_groups_base64,
            self.scan_id,
            self.mrz_lines,
        )?
        .with_active_authentication(
            self.aa_challenge_base64.as_deref(),
            self.aa_response_base64.as_deref(),
        )
    }
}

/// What a caller sends: EF.SOD and data groups as read from the chip, and optionally the
/// printed zone to compare DG1 with.
#[derive(Debug, Default)]
pub struct ChipRequest {
    /// EF.SOD.
    pub sod: Vec<u8>,
    /// The data group files (EF.DG1, EF.DG2, …), each identified by its own tag.
    pub data_groups: Vec<Vec<u8>>,
    /// A kept scan of the same document.
    pub scan_id: Option<String>,
    /// Or the printed MRZ lines.
    pub mrz_lines: Option<Vec<String>>,
    /// Active Authentication: the challenge a reader sent the chip and the chip's answer.
    pub active_authentication: Option<(Vec<u8>, Vec<u8>)>,
}

impl ChipRequest {
    /// The request from its arguments as every front end receives them: `sod_base64`,
    /// `data_groups_base64` (at most [`MAX_DATA_GROUPS`]), and optionally `scan_id` or
    /// `mrz_lines`. Base64 with or without padding, whitespace ignored.
    pub fn from_base64<S: AsRef<str>>(
        sod: &str,
        data_groups: &[S],
        scan_id: Option<String>,
        mrz_lines: Option<Vec<String>>,
    ) -> Result<ChipRequest, ServiceError> {
        if data_groups.len() > MAX_DATA_GROUPS {
            return Err(ServiceError::InvalidInput(format!(
                "'data_groups_base64' holds at most {MAX_DATA_GROUPS} files"
            )));
        }
        Ok(ChipRequest {
            sod: decode_argument("sod_base64", sod)?,
            data_groups: data_groups
                .iter()
                .map(|item| decode_argument("data_groups_base64", item.as_ref()))
                .collect::<Result<_, _>>()?,
            scan_id,
            mrz_lines,
            active_authentication: None,
        })
    }

    /// Adds Active Authentication from `aa_challenge_base64` and `aa_response_base64`: both
    /// or neither.
    pub fn with_active_authentication(
        mut self,
        challenge: Option<&str>,
        response: Option<&str>,
    ) -> Result<ChipRequest, ServiceError> {
        self.active_authentication = match (challenge, response) {
            (None, None) => None,
            (Some(challenge), Some(response)) => Some((
                decode_argument("aa_challenge_base64", challenge)?,
                decode_argument("aa_response_base64", response)?,
            )),
            _ => {
                return Err(ServiceError::InvalidInput(
                    "give both 'aa_challenge_base64' and 'aa_response_base64', or neither"
                        .to_owned(),
                ));
            }
        };
        Ok(self)
    }
}

/// Decodes one base64 argument named `name` (padding optional, whitespace ignored).
fn decode_argument(name: &str, encoded: &str) -> Result<Vec<u8>, ServiceError> {
    ops::decode_base64(encoded)
        .map_err(|_| ServiceError::InvalidInput(format!("'{name}' is not valid base64")))
}

/// Verifies the chip data against the server's trust store. Nothing is kept, and nothing
/// from the data groups is logged.
pub async fn verify_chip(
    state: &AppState,
    principal: &Principal,
    request: ChipRequest,
) -> Result<ChipReport, ServiceError> {
    let printed: Option<(Vec<String>, &str)> = match (request.scan_id.as_deref(), request.mrz_lines)
    {
        (Some(_), Some(_)) => {
            return Err(ServiceError::InvalidInput(
                "give at most one of 'scan_id' and 'mrz_lines'".to_owned(),
            ));
        }
        (Some(id), None) => {
            let lines = ops::kept_lines(state, principal, id).await?;
            if lines.is_empty() {
                return Err(ServiceError::InvalidInput(
                    "That scan holds no MRZ lines to compare the chip with.".to_owned(),
                ));
            }
            Some((lines, "scan"))
        }
        (None, Some(lines)) => {
            if lines.len() > 3 {
                return Err(ops::overlong("mrz_lines"));
            }
            ops::refuse_overlong(&lines, "mrz_lines")?;
            Some((lines, "mrz_lines"))
        }
        (None, None) => None,
    };
    let trust = state.trust.clone();
    let today = crate::today();
    let groups = request.data_groups;
    let sod = request.sod;
    let active = request.active_authentication;
    // Signature checks are milliseconds, but a CSCA master list can make the candidate
    // search long: off the async workers.
    let report = tokio::task::spawn_blocking(move || {
        let refs: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
        let aa = active
            .as_ref()
            .map(|(challenge, response)| mrtd_chip::AaChallenge { challenge, response });
        mrtd_chip::verify_with_aa(&sod, &refs, aa, &trust, SystemTime::now(), today)
    })
    .await
    .map_err(|_| ServiceError::InvalidInput("the chip data could not be checked".to_owned()))?;
    let mut report = report.map_err(|error| ServiceError::ChipData(error.to_string()))?;
    if let Some((lines, source)) = printed
        && !mrtd_chip::compare_mrz(&mut report, &lines, source, today)
    {
        report.diagnostics.push(mrtd_chip::Diagnostic {
            code: "mrz_not_compared".to_owned(),
            message:
                "DG1 or the printed lines could not be read as an MRZ, so they were not compared"
                    .to_owned(),
        });
    }
    Ok(report)
}

/// The JSON Schema of a chip report, subschemas inlined, without `$schema` (the tool's
/// `outputSchema` and the OpenAPI document's `ChipReport`).
pub fn schema() -> serde_json::Value {
    crate::schema::output::<ChipReport>()
}

/// A one-line summary for people (a tool result's text), without any document field.
pub fn summary(report: &ChipReport) -> String {
    let verified = report
        .data_groups
        .iter()
        .filter(|g| g.status == mrtd_chip::DataGroupStatus::Verified)
        .count();
    let mut text = format!(
        "{}: {verified} of {} data group(s) match EF.SOD; signature {}; chain {}.",
        if report.authentic { "Authentic" } else { "Not shown authentic" },
        report.data_groups.len(),
        report.signature.as_str(),
        report.chain.as_str(),
    );
    match report.active_authentication.status {
        mrtd_chip::ActiveAuthenticationStatus::Verified => {
            text.push_str(" Active Authentication verified: the chip holds its key.");
        }
        mrtd_chip::ActiveAuthenticationStatus::Failed => {
            text.push_str(" Active Authentication failed.");
        }
        mrtd_chip::ActiveAuthenticationStatus::Unsupported => {
            text.push_str(" Active Authentication not checked (unsupported algorithm).");
        }
        mrtd_chip::ActiveAuthenticationStatus::NotSupplied => {}
    }
    if let Some(matched) = &report.mrz_match {
        text.push_str(if matched.matches {
            " DG1 matches the printed MRZ."
        } else {
            " DG1 differs from the printed MRZ."
        });
    }
    text
}
