//! The visual zone's part of the result: the fields printed for people, as read from the
//! photo's page, and their agreement with the MRZ.

use mrtd_engine::{Diagnostic, DiagnosticCode, TextError, VisualZone};
use mrtd_mrz::{Agreement, Comparison};
use schemars::JsonSchema;
use serde::Serialize;

use super::DocumentResult;

/// The visual zone, read when asked for (`visual_zone`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VisualZonePart {
    /// `read` when the page was located and its text read (with `other_side`, also the
    /// other side's photo where it shows no MRZ: a card's front), or, for a card's front
    /// alone (no MRZ, a face: `turn_over`), the whole photo read, compared with nothing;
    /// `no_page` when no page was located (no MRZ decoded and no front, or a photo that
    /// cannot be decoded again); `failed` when the text reader could not run.
    pub status: &'static str,
    /// Each field the page shows under a label this reader knows, by name: `surname`,
    /// `given_names`, `birth_date`, `place_of_birth`, `date_of_issue`, `expiry_date`,
    /// `issuing_authority`, `personal_number`, `document_number`, `sex`. A field the page
    /// does not show, or whose label was not read, is absent.
    pub fields: std::collections::BTreeMap<&'static str, VisualFieldPart>,
    /// The fields the MRZ holds too (surname, given names, dates of birth and expiry,
    /// document number, sex), each against the MRZ's: `agrees`, `agrees_truncated`,
    /// `differs`, `not_in_mrz` or `uncompared`; absent where the page showed none of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreement: Option<Comparison>,
    /// Whether the page agrees with the MRZ on every field compared: `false` when any
    /// differs (a misread or an edited page: the diagnostic `visual_zone_differs` names
    /// them), `null` when none could be compared.
    pub matches_mrz: Option<bool>,
    /// How many lines of text the page showed outside the MRZ.
    pub lines_read: usize,
}

/// One field as the page prints it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VisualFieldPart {
    /// What the page prints, as read (accents the reader knows kept, case as printed).
    pub value: String,
    /// The lowest probability among the value's characters, to a thousandth.
    pub confidence: f64,
    /// The evidence that this is the field: the label it was printed under, as read;
    /// absent for a `date_of_issue` known by elimination (a passport's or identity card's
    /// one full date under no label read that is neither the MRZ's date of birth nor its
    /// date of expiry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Where the value is, `[x0, y0, x1, y1]` in the photo's pixels (after EXIF
    /// orientation), to a tenth.
    #[serde(rename = "box")]
    pub bbox: [f64; 4],
    /// `true` when read on the photo of the document's other side (`other_side`, a card's
    /// front), whose pixels `box` is in; absent when read on the photo with the MRZ.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub other_side: bool,
}

impl VisualZonePart {
    fn of(outcome: Result<Option<VisualZone>, TextError>) -> Self {
        let empty = |status| VisualZonePart {
            status,
            fields: Default::default(),
            agreement: None,
            matches_mrz: None,
            lines_read: 0,
        };
        let zone = match outcome {
            Ok(Some(zone)) => zone,
            Ok(None) => return empty("no_page"),
            Err(error) => {
                // The error names a network, never the photo's content.
                tracing::error!(%error, "the visual zone could not be read");
                return empty("failed");
            }
        };
        let fields = zone
            .fields
            .iter()
            .map(|(name, field)| {
                let part = VisualFieldPart {
                    value: field.value.clone(),
                    confidence: (f64::from(field.confidence) * 1000.0).round() / 1000.0,
                    label: field.label.clone(),
                    bbox: field.bbox.map(super::tenth),
                    other_side: field.other_side,
                };
                (name.as_str(), part)
            })
            .collect();
        VisualZonePart {
            status: "read",
            fields,
            matches_mrz: zone.agreement.as_ref().and_then(Comparison::matches),
            agreement: zone.agreement,
            lines_read: zone.lines_read,
        }
    }
}

impl DocumentResult {
    /// Adds the visual zone read from the photo, and the diagnostic `visual_zone_differs`
    /// where the page and the MRZ disagree.
    pub fn set_visual_zone(&mut self, outcome: Result<Option<VisualZone>, TextError>) {
        let part = VisualZonePart::of(outcome);
        if let Some(agreement) = part.agreement.as_ref().filter(|_| part.matches_mrz == Some(false))
        {
            let differing: Vec<&str> = agreement
                .fields()
                .into_iter()
                .filter(|(_, agreement)| *agreement == Some(Agreement::Differs))
                .map(|(name, _)| name)
                .collect();
            self.diagnostics.push(Diagnostic {
                code: DiagnosticCode::VisualZoneDiffers,
                message: format!(
                    "The printed page and the MRZ disagree on: {}. Either one was misread or \
                     the page was altered: compare them on the document itself.",
                    differing.join(", ")
                ),
            });
        }
        self.visual_zone = Some(part);
    }
}
