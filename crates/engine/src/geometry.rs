//! Plane geometry: projective transforms (homographies) between document and photo
//! coordinates, and the distance from a point to a segment.

/// The distance from `point` to the segment from `from` to `to` (to `from` itself when the
/// two ends meet).
pub fn distance_to_segment(point: (f32, f32), from: (f32, f32), to: (f32, f32)) -> f32 {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let length_squared = (dx * dx + dy * dy).max(f32::EPSILON);
    let t = (((point.0 - from.0) * dx + (point.1 - from.1) * dy) / length_squared).clamp(0.0, 1.0);
    (point.0 - from.0 - t * dx).hypot(point.1 - from.1 - t * dy)
}

/// A 3x3 projective transform, row-major, mapping `(x, y)` to `(x', y')`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// Finds the transform that maps each `from` corner onto the matching `to` corner.
    ///
    /// Returns `None` when the corners are degenerate (three of them collinear).
    pub fn from_corners(from: [(f32, f32); 4], to: [(f32, f32); 4]) -> Option<Homography> {
        let mut system = [[0.0f64; 9]; 8];
        for (idx, (&(x, y), &(u, v))) in from.iter().zip(&to).enumerate() {
            let (x, y, u, v) = (f64::from(x), f64::from(y), f64::from(u), f64::from(v));
            system[2 * idx] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            system[2 * idx + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        // Gauss-Jordan elimination with partial pivoting on the 8x8 system.
        for col in 0..8 {
            let pivot = (col..8).max_by(|&a, &b| {
                system[a][col]
                    .abs()
                    .partial_cmp(&system[b][col].abs())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })?;
            if system[pivot][col].abs() < 1e-12 {
                return None;
            }
            system.swap(col, pivot);
            let divisor = system[col][col];
            for value in &mut system[col] {
                *value /= divisor;
            }
            for row in 0..8 {
                if row != col {
                    let factor = system[row][col];
                    if factor != 0.0 {
                        let pivot_row = system[col];
                        for (value, pivot_value) in system[row].iter_mut().zip(pivot_row) {
                            *value -= factor * pivot_value;
                        }
                    }
                }
            }
        }
        let mut matrix = [0.0; 9];
        for (idx, row) in system.iter().enumerate() {
            matrix[idx] = row[8];
        }
        matrix[8] = 1.0;
        Some(Homography(matrix))
    }

    /// Maps a point.
    #[inline]
    pub fn apply(&self, point: (f32, f32)) -> (f32, f32) {
        let m = &self.0;
        let (x, y) = (f64::from(point.0), f64::from(point.1));
        let w = m[6] * x + m[7] * y + m[8];
        (((m[0] * x + m[1] * y + m[2]) / w) as f32, ((m[3] * x + m[4] * y + m[5]) / w) as f32)
    }
}

/// Solves the 3x3 linear system `m x = r` by Cramer's rule; `None` when `m`
/// is singular, or nearly so against the scale of its last diagonal entry.
pub(crate) fn solve3(m: &[[f64; 3]; 3], r: &[f64; 3]) -> Option<[f64; 3]> {
    let det = |m: &[[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let d = det(m);
    if d.abs() < 1e-9 * m[2][2].abs().max(1.0) {
        return None;
    }
    let mut solution = [0f64; 3];
    for (col, value) in solution.iter_mut().enumerate() {
        let mut replaced = *m;
        for row in 0..3 {
            replaced[row][col] = r[row];
        }
        *value = det(&replaced) / d;
    }
    Some(solution)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_corners_onto_corners() {
        let from = [(0.0, 0.0), (100.0, 0.0), (100.0, 50.0), (0.0, 50.0)];
        let to = [(10.0, 5.0), (120.0, 20.0), (110.0, 90.0), (0.0, 60.0)];
        let h = Homography::from_corners(from, to).unwrap();
        for (a, b) in from.iter().zip(&to) {
            let mapped = h.apply(*a);
            assert!((mapped.0 - b.0).abs() < 1e-3 && (mapped.1 - b.1).abs() < 1e-3);
        }
        assert!(Homography::from_corners(from, [(0.0, 0.0); 4]).is_none());
    }

    #[test]
    fn solves_a_three_by_three_system() {
        let m = [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]];
        let x = solve3(&m, &[3.0, 7.25, 14.0]).unwrap();
        for (got, want) in x.iter().zip([1.0, 1.0, 3.25]) {
            assert!((got - want).abs() < 1e-9, "{x:?}");
        }
        assert!(solve3(&[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]], &[1.0; 3]).is_none());
    }
}
