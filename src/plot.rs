//! A small SVG line chart of slowdown against message size (log-scale x; linear or log y),
//! for `homa-nic sim --plot` and `homa-nic compare --plot`. Hand-written SVG: one chart type, no dependency.

use std::fmt::Write;

/// One line on the chart.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Stroke colour (any SVG colour).
    pub color: &'static str,
    /// Dashed line.
    pub dashed: bool,
    /// (message size in bytes, slowdown) points, ascending in size.
    pub points: Vec<(f64, f64)>,
}

const W: f64 = 760.0;
const H: f64 = 420.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 56.0;

/// Renders `series` as an SVG document titled `title`, slowdown on a linear axis from 0.
pub fn slowdown_chart(title: &str, series: &[Series]) -> String {
    chart(title, series, false)
}

/// Renders `series` with slowdown on a logarithmic axis from 1, for series that differ by
/// orders of magnitude (transports side by side).
pub fn slowdown_chart_log(title: &str, series: &[Series]) -> String {
    chart(title, series, true)
}

fn chart(title: &str, series: &[Series], log_y: bool) -> String {
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (mut x_min, mut x_max, mut y_max) = (f64::MAX, f64::MIN, 1.0f64);
    for &(x, y) in pts {
        x_min = x_min.min(x.max(1.0));
        x_max = x_max.max(x);
        y_max = y_max.max(y);
    }
    if x_min > x_max {
        (x_min, x_max) = (1.0, 10.0);
    }
    let (lx0, lx1) = (
        x_min.log10().floor(),
        x_max.log10().ceil().max(x_min.log10().floor() + 1.0),
    );
    // Linear: 0 to a round top in five steps. Logarithmic: 1 to a decade, a step each.
    let (y_top, steps) = if log_y {
        let decades = y_max.log10().ceil().max(1.0);
        (10f64.powf(decades), decades as u32)
    } else {
        (nice_ceiling(y_max), 5)
    };
    let frac = |y: f64| {
        if log_y {
            y.max(1.0).log10() / y_top.log10()
        } else {
            y / y_top
        }
    };
    let px = |x: f64| LEFT + (x.max(1.0).log10() - lx0) / (lx1 - lx0) * (W - LEFT - RIGHT);
    let py = |y: f64| TOP + (1.0 - frac(y)) * (H - TOP - BOTTOM);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>
"#,
        W / 2.0,
        escape(title)
    );
    // Axes, decade ticks and horizontal grid.
    let _ = writeln!(
        svg,
        r#"<line x1="{LEFT}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{}" stroke="black"/>"#,
        H - BOTTOM,
        W - RIGHT,
        H - BOTTOM,
        H - BOTTOM
    );
    let mut d = lx0;
    while d <= lx1 + 1e-9 {
        let x = px(10f64.powf(d));
        let _ = writeln!(
            svg,
            r#"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="black"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"#,
            H - BOTTOM,
            H - BOTTOM + 5.0,
            H - BOTTOM + 19.0,
            size_label(10f64.powf(d))
        );
        d += 1.0;
    }
    for i in 0..=steps {
        let v = if log_y {
            10f64.powi(i as i32)
        } else {
            y_top * f64::from(i) / 5.0
        };
        let y = py(v);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{v:.1}</text>"##,
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">message size (bytes)</text><text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">slowdown</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 14.0,
        (TOP + H - BOTTOM) / 2.0,
        (TOP + H - BOTTOM) / 2.0
    );
    for (i, s) in series.iter().enumerate() {
        let path: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let dash = if s.dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-width="2"{dash} points="{}"/>"#,
            s.color,
            path.join(" ")
        );
        let ly = TOP + 8.0 + 16.0 * i as f64;
        let _ = writeln!(
            svg,
            r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="2"{dash}/><text x="{}" y="{}">{}</text>"#,
            LEFT + 12.0,
            LEFT + 40.0,
            s.color,
            LEFT + 46.0,
            ly + 4.0,
            escape(&s.label)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The smallest 5 x (1, 2 or 5 x 10^k) at or above `v`, so the five grid steps are round.
fn nice_ceiling(v: f64) -> f64 {
    let raw = v / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    5.0 * step
}

fn size_label(v: f64) -> String {
    match v {
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}K", v / 1e3),
        v => format!("{v}"),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
#[allow(non_snake_case)]
mod tests {
    use super::*;

    #[test]
    fn slowdown_chart__draws_each_series_with_legend() {
        let s = |label: &str, dashed| Series {
            label: label.into(),
            color: "blue",
            dashed,
            points: vec![(1.0, 1.2), (1_000.0, 1.5), (1_000_000.0, 4.0)],
        };
        let svg = slowdown_chart("W3 <80%>", &[s("ours p99", false), s("paper p99", true)]);
        assert!(svg.starts_with("<svg"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("paper p99") && svg.contains("stroke-dasharray"));
        assert!(svg.contains("W3 &lt;80%&gt;"));
        assert!(svg.contains(">1M<") && svg.contains(">1K<"));
    }

    #[test]
    fn slowdown_chart_log__has_a_grid_line_per_decade_and_keeps_small_values_apart() {
        let s = |y: f64| Series {
            label: format!("{y}"),
            color: "red",
            dashed: false,
            points: vec![(10.0, y), (10_000.0, y)],
        };
        let svg = slowdown_chart_log("t", &[s(1.5), s(2_500.0)]);
        // 1 to 10,000: five decade lines.
        for v in [">1.0<", ">10.0<", ">100.0<", ">1000.0<", ">10000.0<"] {
            assert!(svg.contains(v), "{v}");
        }
        // On a log axis 1.5 sits clearly above the bottom (on a linear one it would not).
        let y_of = |svg: &str, i: usize| -> f64 {
            let line = svg
                .lines()
                .filter(|l| l.starts_with("<polyline"))
                .nth(i)
                .unwrap();
            let pts = line.split("points=\"").nth(1).unwrap();
            pts.split(',')
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let bottom = H - BOTTOM;
        assert!(bottom - y_of(&svg, 0) > 10.0);
        let linear = slowdown_chart("t", &[s(1.5), s(2_500.0)]);
        assert!(bottom - y_of(&linear, 0) < 1.0);
    }

    #[test]
    fn slowdown_chart__empty_input_still_renders() {
        assert!(slowdown_chart("empty", &[]).ends_with("</svg>\n"));
    }
}
