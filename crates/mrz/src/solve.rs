//! Check-digit-guided correction: the least costly reading that satisfies every check digit.
//!
//! Cells are grouped by the check digit that covers them (a field and its own digit), plus the
//! cells only the composite covers and the composite digit itself. Each group lists the readings
//! that satisfy its own digit with at most two changes; a group whose own digit already verifies
//! stays as read. A dynamic programme over the composite's residue mod 10 then picks the cheapest
//! combination. Where readings within the ambiguity margin disagree on a group, that group is left
//! as read and reported as ambiguous: a guess is never applied.
//!
//! When the composite verifies as read, nothing is changed: any single misread in the cells it
//! covers would have broken it, so a failing field digit then means the document itself is
//! inconsistent (or has several misreads), and a "fix" would be a coincidence, not a proof.

use crate::candidates::Cell;
use crate::check_digit::{agrees, char_value, weight};
use crate::layout::{CheckName, CheckSpec};
use crate::reading::{Alternative, Ambiguity, Change};

/// Enumeration stops after this many readings of one group, bounding the work on any input.
const MAX_GROUP_READINGS: usize = 20_000;

/// Partial solutions kept per residue in the dynamic programme; when this many readings tie,
/// an ambiguity is marked as truncated.
const KEEP_PER_RESIDUE: usize = 8;

type Pos = (usize, usize);

/// A change the solver decided on, and the check digits that prove it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decided {
    pub(crate) pos: Pos,
    pub(crate) to: char,
    pub(crate) proof: Vec<CheckName>,
}

#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) changes: Vec<Decided>,
    pub(crate) ambiguities: Vec<Ambiguity>,
}

/// One way to read a group: the changed cells (index into the group's cells, new char).
#[derive(Debug, Clone)]
struct Option_ {
    changes: Vec<(usize, char)>,
    cost: f64,
    residue: u32,
}

/// Cells that stand or fall together under one check digit.
#[derive(Debug)]
struct Group {
    own: Option<CheckName>,
    cells: Vec<Pos>,
    options: Vec<Option_>,
    /// The group's own check cannot be satisfied within the change budget.
    stuck: bool,
}

fn cell_at(cells: &[Vec<Cell>], pos: Pos) -> Option<&Cell> {
    cells.get(pos.0).and_then(|row| row.get(pos.1))
}

/// The base character of a cell, or `None` when it is not allowed in the cell's class.
fn valid_base(cells: &[Vec<Cell>], pos: Pos) -> Option<char> {
    cell_at(cells, pos).filter(|cell| cell.valid_base).map(Cell::base)
}

/// Whether `spec` verifies when cell chars come from `char_at`.
fn satisfied(spec: &CheckSpec, char_at: &dyn Fn(Pos) -> Option<char>) -> bool {
    let Some(digit_pos) = spec.digit else {
        return true;
    };
    let mut sum = 0u32;
    for (index, pos) in spec.covered_cells().enumerate() {
        match char_at(pos).and_then(char_value) {
            Some(value) => sum = (sum + value * weight(index)) % 10,
            None => return false,
        }
    }
    let computed = u8::try_from(sum).unwrap_or(0);
    char_at(digit_pos).is_some_and(|c| agrees(c, computed))
}

/// Every reading of `positions` with at most `max_changes` alternatives; the unchanged reading
/// comes first.
fn enumerate(
    cells: &[Vec<Cell>],
    positions: &[Pos],
    max_changes: usize,
) -> Vec<(Vec<(usize, char)>, f64)> {
    if max_changes == 0 {
        return vec![(Vec::new(), 0.0)];
    }
    let alternatives: Vec<(usize, &[(char, f64)])> = positions
        .iter()
        .enumerate()
        .filter_map(|(idx, pos)| {
            let cell = cell_at(cells, *pos)?;
            (cell.options.len() > 1).then(|| (idx, &cell.options[1..]))
        })
        .collect();
    let mut readings = vec![(Vec::new(), 0.0)];
    for (first_idx, (cell_a, options_a)) in alternatives.iter().enumerate() {
        for (char_a, cost_a) in options_a.iter() {
            readings.push((vec![(*cell_a, *char_a)], *cost_a));
            if max_changes < 2 {
                continue;
            }
            for (cell_b, options_b) in alternatives.iter().skip(first_idx + 1) {
                for (char_b, cost_b) in options_b.iter() {
                    if readings.len() >= MAX_GROUP_READINGS {
                        return readings;
                    }
                    readings.push((vec![(*cell_a, *char_a), (*cell_b, *char_b)], cost_a + cost_b));
                }
            }
        }
    }
    readings
}

/// The composite's weight for every covered cell, by line and column.
struct CompositeWeights {
    weights: Vec<Vec<Option<u32>>>,
    digit: Option<Pos>,
}

impl CompositeWeights {
    fn new(cells: &[Vec<Cell>], composite: &CheckSpec) -> CompositeWeights {
        let mut weights: Vec<Vec<Option<u32>>> =
            cells.iter().map(|row| vec![None; row.len()]).collect();
        for (index, (line, column)) in composite.covered_cells().enumerate() {
            if let Some(slot) = weights.get_mut(line).and_then(|row| row.get_mut(column)) {
                *slot = Some(weight(index));
            }
        }
        CompositeWeights { weights, digit: composite.digit }
    }

    fn weight(&self, pos: Pos) -> Option<u32> {
        self.weights.get(pos.0).and_then(|row| row.get(pos.1)).copied().flatten()
    }
}

/// The composite residue a group contributes under one reading, `None` if a char is invalid.
fn residue(
    cells: &[Vec<Cell>],
    positions: &[Pos],
    changes: &[(usize, char)],
    composite: &CompositeWeights,
) -> Option<u32> {
    let char_of = |idx: usize| -> Option<char> {
        changes
            .iter()
            .find(|(changed, _)| *changed == idx)
            .map(|(_, c)| *c)
            .or_else(|| valid_base(cells, positions[idx]))
    };
    let mut sum = 0u32;
    for (idx, pos) in positions.iter().enumerate() {
        if composite.digit == Some(*pos) {
            let value = match char_of(idx)? {
                c @ '0'..='9' => char_value(c)?,
                '<' => 0,
                _ => return None,
            };
            sum = (sum + 10 - value) % 10;
        } else if let Some(weight) = composite.weight(*pos) {
            sum = (sum + char_value(char_of(idx)?)? * weight) % 10;
        }
    }
    Some(sum)
}

/// The groups of a zone: one per field check digit (field cells plus the digit), and one for
/// the cells only the composite covers (plus the composite digit when no field owns it).
fn build_groups(cells: &[Vec<Cell>], checks: &[CheckSpec], max_changes: usize) -> Vec<Group> {
    let composite_spec =
        checks.iter().find(|spec| spec.name == CheckName::Composite && spec.digit.is_some());
    let weights = composite_spec.map(|spec| CompositeWeights::new(cells, spec));
    let composite = weights.as_ref();
    let mut groups = Vec::new();
    let mut grouped: Vec<Pos> = Vec::new();
    for spec in checks.iter().filter(|spec| spec.name != CheckName::Composite) {
        let Some(digit) = spec.digit else { continue };
        let mut positions: Vec<Pos> = spec.covered_cells().collect();
        positions.push(digit);
        grouped.extend(&positions);
        let base_ok = satisfied(spec, &|pos| valid_base(cells, pos));
        let mut options = Vec::new();
        let candidates = if base_ok {
            vec![(Vec::new(), 0.0)]
        } else {
            enumerate(cells, &positions, max_changes)
        };
        for (changes, cost) in candidates {
            let char_at = |pos: Pos| -> Option<char> {
                let idx = positions.iter().position(|p| *p == pos)?;
                changes
                    .iter()
                    .find(|(changed, _)| *changed == idx)
                    .map(|(_, c)| *c)
                    .or_else(|| valid_base(cells, pos))
            };
            if base_ok || satisfied(spec, &char_at) {
                let residue =
                    composite.and_then(|c| residue(cells, &positions, &changes, c)).unwrap_or(0);
                options.push(Option_ { changes, cost, residue });
            }
        }
        // A field no allowed change can repair stays as read and blocks the composite search:
        // the composite would otherwise be "repaired" to agree with a field known to be wrong.
        let stuck = options.is_empty();
        if stuck {
            options.push(Option_ { changes: Vec::new(), cost: 0.0, residue: 0 });
        }
        groups.push(Group { own: Some(spec.name), cells: positions, options, stuck });
    }
    if let (Some(composite_spec), Some(composite)) = (composite_spec, composite) {
        let mut rest: Vec<Pos> =
            composite_spec.covered_cells().filter(|pos| !grouped.contains(pos)).collect();
        if let Some(digit) = composite_spec.digit.filter(|pos| !grouped.contains(pos)) {
            rest.push(digit);
        }
        let options = enumerate(cells, &rest, max_changes)
            .into_iter()
            .filter_map(|(changes, cost)| {
                let residue = residue(cells, &rest, &changes, composite)?;
                Some(Option_ { changes, cost, residue })
            })
            .collect();
        groups.push(Group { own: None, cells: rest, options, stuck: false });
    }
    groups
}

/// Combines group readings so that the composite residue is zero; the cheapest few, cheapest
/// first, as indices into each group's options.
fn combine(groups: &[Group]) -> Vec<(f64, Vec<usize>)> {
    let mut states: Vec<Vec<(f64, Vec<usize>)>> = vec![Vec::new(); 10];
    states[0].push((0.0, Vec::new()));
    for group in groups {
        // Only the cheapest few options per residue can reach the kept solutions.
        let mut by_residue: Vec<Vec<usize>> = vec![Vec::new(); 10];
        let mut order: Vec<usize> = (0..group.options.len()).collect();
        order.sort_by(|a, b| group.options[*a].cost.total_cmp(&group.options[*b].cost));
        for idx in order {
            let slot = &mut by_residue[group.options[idx].residue as usize % 10];
            if slot.len() < KEEP_PER_RESIDUE {
                slot.push(idx);
            }
        }
        let mut next: Vec<Vec<(f64, Vec<usize>)>> = vec![Vec::new(); 10];
        for (state, partials) in states.iter().enumerate() {
            for (cost, choice) in partials {
                for options in &by_residue {
                    for idx in options {
                        let option = &group.options[*idx];
                        let target = (state + option.residue as usize) % 10;
                        let mut extended = choice.clone();
                        extended.push(*idx);
                        next[target].push((cost + option.cost, extended));
                    }
                }
            }
        }
        for partials in &mut next {
            partials.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
            partials.truncate(KEEP_PER_RESIDUE);
        }
        states = next;
    }
    std::mem::take(&mut states[0])
}

/// The group's text under one reading, for the ambiguity report.
fn text_of(cells: &[Vec<Cell>], group: &Group, option: &Option_) -> String {
    group
        .cells
        .iter()
        .enumerate()
        .map(|(idx, pos)| {
            option
                .changes
                .iter()
                .find(|(changed, _)| *changed == idx)
                .map(|(_, c)| *c)
                .or_else(|| cell_at(cells, *pos).map(Cell::base))
                .unwrap_or('?')
        })
        .collect()
}

/// One reading's changes, in output positions.
fn changes_of(cells: &[Vec<Cell>], group: &Group, option: &Option_) -> Vec<Change> {
    option
        .changes
        .iter()
        .map(|(idx, to)| {
            let pos = group.cells[*idx];
            Change {
                line: pos.0 + 1,
                column: pos.1 + 1,
                from: cell_at(cells, pos).map_or('?', Cell::base),
                to: *to,
            }
        })
        .collect()
}

/// Applies a group's choice when the near-best readings agree on it, else reports the ambiguity.
fn settle(
    cells: &[Vec<Cell>],
    group: &Group,
    chosen: &[(f64, usize)],
    proof: &[CheckName],
    truncated: bool,
    outcome: &mut Outcome,
) {
    let mut distinct: Vec<(f64, usize)> = Vec::new();
    for (cost, idx) in chosen {
        if !distinct.iter().any(|(_, seen)| seen == idx) {
            distinct.push((*cost, *idx));
        }
    }
    match distinct.as_slice() {
        [] => {}
        [(_, idx)] => {
            for (cell_idx, to) in &group.options[*idx].changes {
                outcome.changes.push(Decided {
                    pos: group.cells[*cell_idx],
                    to: *to,
                    proof: proof.to_vec(),
                });
            }
        }
        several => {
            let best = several.iter().map(|(cost, _)| *cost).fold(f64::INFINITY, f64::min);
            let total: f64 = several.iter().map(|(cost, _)| (best - cost).exp()).sum();
            let alternatives = several
                .iter()
                .map(|(cost, idx)| {
                    let option = &group.options[*idx];
                    Alternative {
                        changes: changes_of(cells, group, option),
                        text: text_of(cells, group, option),
                        likelihood: (best - cost).exp() / total,
                    }
                })
                .collect();
            outcome.ambiguities.push(Ambiguity { checks: proof.to_vec(), alternatives, truncated });
        }
    }
}

/// Finds the corrections for `cells` under `checks` with at most `max_changes` changed cells per
/// group, treating readings whose cost is within `margin` of the best as equally good.
pub(crate) fn solve(
    cells: &[Vec<Cell>],
    checks: &[CheckSpec],
    max_changes: usize,
    margin: f64,
) -> Outcome {
    let mut outcome = Outcome::default();
    let as_read = |spec: &CheckSpec| satisfied(spec, &|pos| valid_base(cells, pos));
    // The top reading already satisfies everything: keep it, however likely the alternatives.
    if checks.iter().all(as_read) {
        return outcome;
    }
    let composite =
        checks.iter().find(|spec| spec.name == CheckName::Composite && spec.digit.is_some());
    // See the module comment: a verifying composite vetoes every single-misread explanation.
    if composite.is_some_and(as_read) {
        return outcome;
    }
    let groups = build_groups(cells, checks, max_changes);
    let has_composite = composite.is_some();
    let any_stuck = groups.iter().any(|group| group.stuck);
    let solutions = if has_composite && !any_stuck { combine(&groups) } else { Vec::new() };
    if let Some((best, _)) = solutions.first() {
        // Every solution within the margin is as good as the best: only what they all agree on
        // may be applied.
        let near: Vec<&(f64, Vec<usize>)> =
            solutions.iter().filter(|(cost, _)| *cost <= best + margin).collect();
        for (group_idx, group) in groups.iter().enumerate() {
            let chosen: Vec<(f64, usize)> = near
                .iter()
                .filter_map(|(cost, choice)| Some((*cost, *choice.get(group_idx)?)))
                .collect();
            let proof: Vec<CheckName> =
                group.own.into_iter().chain([CheckName::Composite]).collect();
            let truncated = near.len() >= KEEP_PER_RESIDUE;
            settle(cells, group, &chosen, &proof, truncated, &mut outcome);
        }
        return outcome;
    }
    // Without a usable composite each field stands on its own digit; composite-only cells stay.
    for group in groups.iter().filter(|group| group.own.is_some() && !group.stuck) {
        let best = group.options.iter().map(|o| o.cost).fold(f64::INFINITY, f64::min);
        let mut chosen: Vec<(f64, usize)> = group
            .options
            .iter()
            .enumerate()
            .filter(|(_, option)| option.cost <= best + margin)
            .map(|(idx, option)| (option.cost, idx))
            .collect();
        chosen.sort_by(|a, b| a.0.total_cmp(&b.0));
        let proof: Vec<CheckName> = group.own.into_iter().collect();
        settle(cells, group, &chosen, &proof, false, &mut outcome);
    }
    outcome
}
