//! Binarisation and connected components: the ink blobs that may be characters.

use crate::gray::Gray;

/// One connected blob of dark pixels, described by its moments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Component {
    /// Centroid.
    pub(crate) cx: f32,
    pub(crate) cy: f32,
    /// Second central moments (variances and covariance of pixel positions).
    pub(crate) vxx: f32,
    pub(crate) vyy: f32,
    pub(crate) vxy: f32,
    /// Number of pixels.
    pub(crate) area: u32,
}

impl Component {
    /// The extent of the blob along a unit direction, from its variance along it.
    ///
    /// For ink spread evenly over a segment of length L the variance is L²/12,
    /// so this is exact for bars and a good size estimate for glyphs at any angle.
    #[inline]
    pub(crate) fn extent(&self, dx: f32, dy: f32) -> f32 {
        let var = self.vxx * dx * dx + 2.0 * self.vxy * dx * dy + self.vyy * dy * dy;
        (12.0 * var.max(0.0)).sqrt() + 1.0
    }
}

/// Marks pixels darker than their neighbourhood (a local mean threshold over a
/// square window), the usual way to separate print from uneven lighting.
pub(crate) fn binarise(image: &Gray, radius: usize) -> Vec<bool> {
    let (w, h) = (image.width, image.height);
    let mut integral = vec![0u64; (w + 1) * (h + 1)];
    for y in 0..h {
        let mut row_sum = 0u64;
        for x in 0..w {
            row_sum += u64::from(image.data[y * w + x]);
            integral[(y + 1) * (w + 1) + x + 1] = integral[y * (w + 1) + x + 1] + row_sum;
        }
    }
    let mut dark = vec![false; w * h];
    for y in 0..h {
        let y0 = y.saturating_sub(radius);
        let y1 = (y + radius + 1).min(h);
        for x in 0..w {
            let x0 = x.saturating_sub(radius);
            let x1 = (x + radius + 1).min(w);
            let sum = integral[y1 * (w + 1) + x1] + integral[y0 * (w + 1) + x0]
                - integral[y0 * (w + 1) + x1]
                - integral[y1 * (w + 1) + x0];
            let count = ((y1 - y0) * (x1 - x0)) as u64;
            let pixel = u64::from(image.data[y * w + x]);
            // Darker than 88 % of the local mean and by at least 10 levels:
            // relative so that dim photos work, absolute so that paper noise does not.
            dark[y * w + x] = pixel * count * 100 < sum * 88 && pixel * count + 10 * count < sum;
        }
    }
    dark
}

fn find(parent: &mut [u32], mut idx: u32) -> u32 {
    while parent[idx as usize] != idx {
        let grand = parent[parent[idx as usize] as usize];
        parent[idx as usize] = grand;
        idx = grand;
    }
    idx
}

/// Labels 8-connected dark regions and returns their moments.
pub(crate) fn components(mask: &[bool], width: usize, height: usize) -> Vec<Component> {
    let mut labels = vec![u32::MAX; width * height];
    let mut parent: Vec<u32> = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let idx = y * width + x;
            if !mask[idx] {
                continue;
            }
            let mut label = u32::MAX;
            let mut neighbours = [u32::MAX; 4];
            if x > 0 {
                neighbours[0] = labels[idx - 1];
            }
            if y > 0 {
                neighbours[1] = labels[idx - width];
                if x > 0 {
                    neighbours[2] = labels[idx - width - 1];
                }
                if x + 1 < width {
                    neighbours[3] = labels[idx - width + 1];
                }
            }
            for &n in &neighbours {
                if n == u32::MAX {
                    continue;
                }
                if label == u32::MAX {
                    label = n;
                } else if n != label {
                    let a = find(&mut parent, label);
                    let b = find(&mut parent, n);
                    if a != b {
                        parent[a.max(b) as usize] = a.min(b);
                    }
                }
            }
            if label == u32::MAX {
                label = parent.len() as u32;
                parent.push(label);
            }
            labels[idx] = label;
        }
    }
    // Accumulate raw moments per root label.
    let mut sums = vec![[0f64; 6]; parent.len()];
    for y in 0..height {
        for x in 0..width {
            let label = labels[y * width + x];
            if label == u32::MAX {
                continue;
            }
            let root = find(&mut parent, label) as usize;
            let (fx, fy) = (x as f64, y as f64);
            let s = &mut sums[root];
            s[0] += 1.0;
            s[1] += fx;
            s[2] += fy;
            s[3] += fx * fx;
            s[4] += fy * fy;
            s[5] += fx * fy;
        }
    }
    sums.iter()
        .filter(|s| s[0] >= 4.0)
        .map(|s| {
            let n = s[0];
            let (mx, my) = (s[1] / n, s[2] / n);
            Component {
                cx: (mx + 0.5) as f32,
                cy: (my + 0.5) as f32,
                vxx: (s[3] / n - mx * mx) as f32,
                vyy: (s[4] / n - my * my) as f32,
                vxy: (s[5] / n - mx * my) as f32,
                area: n as u32,
            }
        })
        .collect()
}
