//! How well the per-field `confidence` predicts that a field is exactly right: the fields of
//! every reading compared with the fields of its known MRZ, grouped by confidence into a
//! reliability table, and the expected calibration error (the mean gap between confidence and
//! the share exactly right, weighted by how many fields fall in each group).

use mrtd_engine::{ParseOptions, Reading};
use serde_json::{Value, json};

/// The confidence groups of the reliability table, as [from, to).
const BINS: [(f32, f32); 7] =
    [(0.0, 0.5), (0.5, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 0.99), (0.99, 0.999), (0.999, 1.01)];

/// (confidence, exactly right) for every field of every reading added.
#[derive(Debug, Default)]
pub(crate) struct Calibration {
    pairs: Vec<(f32, bool)>,
}

/// One group of the reliability table.
struct Bin {
    from: f32,
    to: f32,
    fields: usize,
    mean_confidence: f64,
    exact: f64,
}

impl Calibration {
    /// Adds the fields of `reading`, judged against the fields of the MRZ `truth`.
    pub(crate) fn add(&mut self, reading: &Reading, truth: &[String], options: &ParseOptions) {
        let lines: Vec<&str> = truth.iter().map(String::as_str).collect();
        let Ok(expected) = mrtd_mrz::parse_text(&lines, options) else { return };
        let (Ok(got), Ok(want)) =
            (serde_json::to_value(&reading.fields), serde_json::to_value(&expected.fields))
        else {
            return;
        };
        for evidence in &reading.evidence {
            let Ok(Value::String(name)) = serde_json::to_value(evidence.field) else { continue };
            let right = got.get(&name) == want.get(&name);
            self.pairs.push((evidence.confidence, right));
        }
    }

    fn bins(&self) -> Vec<Bin> {
        BINS.iter()
            .map(|&(from, to)| {
                let inside: Vec<&(f32, bool)> =
                    self.pairs.iter().filter(|(c, _)| *c >= from && *c < to).collect();
                let n = inside.len();
                let mean = |f: &dyn Fn(&(f32, bool)) -> f64| {
                    if n == 0 { 0.0 } else { inside.iter().map(|p| f(p)).sum::<f64>() / n as f64 }
                };
                Bin {
                    from,
                    to: to.min(1.0),
                    fields: n,
                    mean_confidence: mean(&|p| f64::from(p.0)),
                    exact: mean(&|p| if p.1 { 1.0 } else { 0.0 }),
                }
            })
            .collect()
    }

    /// The expected calibration error over the table's groups.
    pub(crate) fn ece(&self) -> f64 {
        let total = self.pairs.len().max(1) as f64;
        self.bins()
            .iter()
            .map(|bin| (bin.mean_confidence - bin.exact).abs() * bin.fields as f64 / total)
            .sum()
    }

    pub(crate) fn to_json(&self) -> Value {
        let bins: Vec<Value> = self
            .bins()
            .iter()
            .map(|bin| {
                json!({
                    "from": bin.from, "to": bin.to, "fields": bin.fields,
                    "mean_confidence": bin.mean_confidence, "exact": bin.exact,
                })
            })
            .collect();
        json!({ "fields": self.pairs.len(), "expected_calibration_error": self.ece(), "reliability": bins })
    }

    /// The table as lines of text.
    pub(crate) fn render(&self, report: &mut Vec<String>) {
        report.push(format!(
            "field confidence           {} fields, expected calibration error {:.3}",
            self.pairs.len(),
            self.ece()
        ));
        report.push(format!(
            "  {:<13} {:>7} {:>16} {:>14}",
            "confidence", "fields", "mean confidence", "exactly right"
        ));
        for bin in self.bins().iter().filter(|bin| bin.fields > 0) {
            report.push(format!(
                "  {:<13} {:>7} {:>16.3} {:>14.3}",
                format!("{:.3}-{:.3}", bin.from, bin.to),
                bin.fields,
                bin.mean_confidence,
                bin.exact
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_is_the_weighted_gap_between_confidence_and_accuracy() {
        let mut calibration = Calibration::default();
        // Ten fields at 0.9 of which nine are right: calibrated.
        calibration.pairs.extend((0..10).map(|i| (0.9, i < 9)));
        assert!(calibration.ece() < 1e-6, "{}", calibration.ece());
        // Ten more at 1.0 of which five are right: a gap of 0.5 over half the fields.
        calibration.pairs.extend((0..10).map(|i| (1.0, i < 5)));
        assert!((calibration.ece() - 0.25).abs() < 1e-6, "{}", calibration.ece());
    }
}
