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

/// How much darker than its neighbourhood a pixel must be to count as ink:
/// below `percent` of the local mean, and by at least `levels` gray levels
/// (relative so that dim photos work, absolute so that paper noise does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Darkness {
    pub(crate) percent: u32,
    pub(crate) levels: u32,
}

impl Darkness {
    /// Print on paper.
    pub(crate) const NORMAL: Darkness = Darkness { percent: 88, levels: 10 };
    /// Faint or thin print (light ink, low light, blur), for a second look when
    /// the normal threshold breaks glyphs apart; it lets more paper grain in.
    pub(crate) const FAINT: Darkness = Darkness { percent: 93, levels: 6 };
}

/// Marks pixels darker than their neighbourhood (a local mean threshold over a
/// square window), the usual way to separate print from uneven lighting.
pub(crate) fn binarise(image: &Gray, radius: usize, darkness: Darkness) -> Vec<bool> {
    let (w, h) = (image.width, image.height);
    let stride = w + 1;
    // The running sums wrap around in 32 bits; a window's sum, being far below
    // 2^32, still comes out exact from wrapping differences, and the table is
    // half the size of a 64-bit one.
    let mut integral = vec![0u32; stride * (h + 1)];
    for y in 0..h {
        let mut row_sum = 0u32;
        let (above, below) = integral.split_at_mut((y + 1) * stride);
        let above = &above[y * stride..];
        for x in 0..w {
            row_sum = row_sum.wrapping_add(u32::from(image.data[y * w + x]));
            below[x + 1] = above[x + 1].wrapping_add(row_sum);
        }
    }
    let Darkness { percent, levels } = darkness;
    let is_dark = |pixel: u8, count: u64, sum: u64| {
        let pixel = u64::from(pixel);
        pixel * count * 100 < sum * u64::from(percent)
            && pixel * count + u64::from(levels) * count < sum
    };
    let full_window = 2 * radius + 1;
    // Whole windows away from the left and right edges are tested in 32 bits
    // over plain slices, which the compiler vectorises; the products fit.
    let narrow = (full_window * full_window * 255 * 100) < u32::MAX as usize;
    let mut dark = vec![false; w * h];
    for (y, (pixels, marks)) in image.data.chunks_exact(w).zip(dark.chunks_exact_mut(w)).enumerate()
    {
        let y0 = y.saturating_sub(radius);
        let y1 = (y + radius + 1).min(h);
        let (top, bottom) =
            (&integral[y0 * stride..][..stride], &integral[y1 * stride..][..stride]);
        let window_sum = |x0: usize, x1: usize| {
            u64::from(
                bottom[x1].wrapping_add(top[x0]).wrapping_sub(top[x1]).wrapping_sub(bottom[x0]),
            )
        };
        let inner = if narrow && w > 2 * radius { radius..w - radius } else { 0..0 };
        if !inner.is_empty() {
            let count = ((y1 - y0) * full_window) as u32;
            let n = inner.len();
            let (left_top, right_top) = (&top[..n], &top[full_window..][..n]);
            let (left_bottom, right_bottom) = (&bottom[..n], &bottom[full_window..][..n]);
            let sums = left_top.iter().zip(right_top).zip(left_bottom.iter().zip(right_bottom));
            for ((mark, &pixel), ((&lt, &rt), (&lb, &rb))) in
                marks[inner.clone()].iter_mut().zip(&pixels[inner.clone()]).zip(sums)
            {
                let sum = rb.wrapping_add(lt).wrapping_sub(rt).wrapping_sub(lb);
                let pixel = u32::from(pixel);
                *mark = pixel * count * 100 < sum * percent && pixel * count + levels * count < sum;
            }
        }
        for x in (0..inner.start).chain(inner.end..w) {
            let x0 = x.saturating_sub(radius);
            let x1 = (x + radius + 1).min(w);
            marks[x] = is_dark(pixels[x], ((y1 - y0) * (x1 - x0)) as u64, window_sum(x0, x1));
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

/// A horizontal run of dark pixels, `x0..x1` on row `y`, with its provisional label.
struct Run {
    y: usize,
    x0: usize,
    x1: usize,
    label: u32,
}

/// Labels 8-connected dark regions and returns their moments, in the raster
/// order of each region's first pixel.
///
/// Works on runs of dark pixels rather than pixels: a run touches a run of
/// the row above when their spans, widened by one pixel, overlap; the moments
/// of a run have closed forms.
pub(crate) fn components(mask: &[bool], width: usize, height: usize) -> Vec<Component> {
    let (runs, roots) = label_runs(mask, width, height);
    let moments = moments_by_root(&runs, &roots);
    moments.iter().filter_map(component).collect()
}

/// `mask` with only the pixels of the regions that `keep` accepts.
pub(crate) fn regions_where(
    mask: &[bool],
    width: usize,
    height: usize,
    keep: impl Fn(&Component) -> bool,
) -> Vec<bool> {
    let (runs, roots) = label_runs(mask, width, height);
    let kept: Vec<bool> = moments_by_root(&runs, &roots)
        .iter()
        .map(|m| component(m).is_some_and(|c| keep(&c)))
        .collect();
    let mut out = vec![false; mask.len()];
    for (run, &root) in runs.iter().zip(&roots) {
        if kept[root as usize] {
            out[run.y * width + run.x0..run.y * width + run.x1].fill(true);
        }
    }
    out
}

/// The dark runs of `mask`, with the root label of the region each belongs to.
fn label_runs(mask: &[bool], width: usize, height: usize) -> (Vec<Run>, Vec<u32>) {
    let mut runs: Vec<Run> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    let mut above = 0..0;
    for (y, row) in mask.chunks_exact(width).enumerate().take(height) {
        let row_start = runs.len();
        let mut x = 0;
        while x < width {
            if !row[x] {
                x += 1;
                continue;
            }
            let x0 = x;
            while x < width && row[x] {
                x += 1;
            }
            runs.push(Run { y, x0, x1: x, label: u32::MAX });
        }
        // Runs of both rows are ordered by x: walk them together.
        let mut first_above = above.start;
        for idx in row_start..runs.len() {
            let (x0, x1) = (runs[idx].x0, runs[idx].x1);
            while first_above < above.end && runs[first_above].x1 < x0 {
                first_above += 1;
            }
            let mut label = u32::MAX;
            let mut k = first_above;
            while k < above.end && runs[k].x0 <= x1 {
                let other = runs[k].label;
                if label == u32::MAX {
                    label = find(&mut parent, other);
                } else {
                    let (a, b) = (find(&mut parent, label), find(&mut parent, other));
                    if a != b {
                        parent[a.max(b) as usize] = a.min(b);
                        label = a.min(b);
                    }
                }
                k += 1;
            }
            if label == u32::MAX {
                label = parent.len() as u32;
                parent.push(label);
            }
            runs[idx].label = label;
        }
        above = row_start..runs.len();
    }
    let roots = runs.iter().map(|run| find(&mut parent, run.label)).collect();
    (runs, roots)
}

/// Raw moments (count, sums of x, y, x², y², xy) per root label, in integers: exact, and
/// the same as summing the coordinates of the pixels as reals.
fn moments_by_root(runs: &[Run], roots: &[u32]) -> Vec<[u64; 6]> {
    let n_labels = roots.iter().max().map_or(0, |&m| m as usize + 1);
    let mut moments = vec![[0u64; 6]; n_labels];
    for (run, &root) in runs.iter().zip(roots) {
        let (n, y) = ((run.x1 - run.x0) as u64, run.y as u64);
        let (a, b) = (run.x0 as u64, run.x1 as u64 - 1);
        let sum_x = (a + b) * n / 2;
        // Sum of x² over a..=b as the difference of the closed forms to b and to a - 1.
        let squares_to = |m: u64| m * (m + 1) * (2 * m + 1) / 6;
        let sum_xx = squares_to(b) - if a == 0 { 0 } else { squares_to(a - 1) };
        let s = &mut moments[root as usize];
        s[0] += n;
        s[1] += sum_x;
        s[2] += n * y;
        s[3] += sum_xx;
        s[4] += n * y * y;
        s[5] += sum_x * y;
    }
    moments
}

/// A region's moments as a [`Component`]; `None` for regions under four pixels.
fn component(moments: &[u64; 6]) -> Option<Component> {
    let s = moments.map(|v| v as f64);
    (s[0] >= 4.0).then(|| {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flood fill, pixel by pixel: the plain definition of 8-connected regions.
    fn reference(mask: &[bool], width: usize, height: usize) -> Vec<[u64; 6]> {
        let mut seen = vec![false; mask.len()];
        let mut regions = Vec::new();
        for start in 0..mask.len() {
            if !mask[start] || seen[start] {
                continue;
            }
            seen[start] = true;
            let mut stack = vec![start];
            let mut m = [0u64; 6];
            while let Some(idx) = stack.pop() {
                let (x, y) = ((idx % width) as i64, (idx / width) as i64);
                let (ux, uy) = (x as u64, y as u64);
                m = [
                    m[0] + 1,
                    m[1] + ux,
                    m[2] + uy,
                    m[3] + ux * ux,
                    m[4] + uy * uy,
                    m[5] + ux * uy,
                ];
                for (dx, dy) in
                    [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]
                {
                    let (nx, ny) = (x + dx, y + dy);
                    if nx < 0 || ny < 0 || nx >= width as i64 || ny >= height as i64 {
                        continue;
                    }
                    let next = ny as usize * width + nx as usize;
                    if mask[next] && !seen[next] {
                        seen[next] = true;
                        stack.push(next);
                    }
                }
            }
            if m[0] >= 4 {
                regions.push(m);
            }
        }
        regions
    }

    #[test]
    fn binarising_marks_pixels_darker_than_their_window() {
        let (width, height, radius) = (40, 23, 5);
        let image = crate::gray::noise(width, height, 0x1234_5678);
        for darkness in [Darkness::NORMAL, Darkness::FAINT] {
            let dark = binarise(&image, radius, darkness);
            assert_eq!(dark, plainly_binarised(&image, radius, darkness), "{darkness:?}");
        }
        // The faint threshold marks everything the normal one does, and more.
        let normal = binarise(&image, radius, Darkness::NORMAL);
        let faint = binarise(&image, radius, Darkness::FAINT);
        assert!(normal.iter().zip(&faint).all(|(&n, &f)| !n || f));
        assert!(faint.iter().filter(|&&f| f).count() > normal.iter().filter(|&&n| n).count());
    }

    /// The local mean threshold computed the slow, obvious way.
    fn plainly_binarised(image: &Gray, radius: usize, darkness: Darkness) -> Vec<bool> {
        let (width, height) = (image.width, image.height);
        let mut dark = vec![false; width * height];
        for y in 0..height {
            for x in 0..width {
                let (mut sum, mut count) = (0u64, 0u64);
                for yy in y.saturating_sub(radius)..(y + radius + 1).min(height) {
                    for xx in x.saturating_sub(radius)..(x + radius + 1).min(width) {
                        sum += u64::from(image.data[yy * width + xx]);
                        count += 1;
                    }
                }
                let pixel = u64::from(image.data[y * width + x]);
                let (percent, levels) = (u64::from(darkness.percent), u64::from(darkness.levels));
                dark[y * width + x] =
                    pixel * count * 100 < sum * percent && pixel * count + levels * count < sum;
            }
        }
        dark
    }

    #[test]
    fn runs_find_the_regions_a_flood_fill_finds_in_raster_order() {
        let (width, height) = (61, 47);
        let levels = crate::gray::noise(width, height, 0x2545_f491);
        for density in [20u32, 45, 60] {
            let mask: Vec<bool> =
                levels.data.iter().map(|&v| u32::from(v) * 100 < density * 256).collect();
            let found = components(&mask, width, height);
            let expected = reference(&mask, width, height);
            assert_eq!(found.len(), expected.len(), "density {density}");
            for (c, m) in found.iter().zip(&expected) {
                let n = m[0] as f64;
                let (mx, my) = (m[1] as f64 / n, m[2] as f64 / n);
                assert_eq!(c.area, m[0] as u32);
                assert_eq!(c.cx, (mx + 0.5) as f32);
                assert_eq!(c.cy, (my + 0.5) as f32);
                assert_eq!(c.vxx, (m[3] as f64 / n - mx * mx) as f32);
                assert_eq!(c.vyy, (m[4] as f64 / n - my * my) as f32);
                assert_eq!(c.vxy, (m[5] as f64 / n - mx * my) as f32);
            }
        }
    }
}
