"""Inline SVG charts for demo-report.html: no scripts, no fonts or files from the network."""

import math
from html import escape

WIDTH, HEIGHT = 860, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 30, 40


def _log_ticks(lo, hi):
    """1, 2, 5 x 10^k ticks between lo and hi (ms)."""
    ticks, k = [], math.floor(math.log10(lo))
    while 10 ** k <= hi * 10:
        for m in (1, 2, 5):
            v = m * 10 ** k
            if lo <= v <= hi:
                ticks.append(v)
        k += 1
    return ticks


def _fmt_ms(v):
    return f"{v / 1000:g} s" if v >= 1000 else f"{v:g} ms"


def latency_over_time(title, points, colour, x_max_s, y_range_ms, window_s=0.5):
    """Scatter of request latency (log y) against seconds since the load started, with a
    rolling P95 line. points: [(t_s, ms, ok)]. Axes are passed in so two charts compare 1:1."""
    from latency import percentile

    lo, hi = y_range_ms
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t):
        return LEFT + plot_w * min(max(t / x_max_s, 0.0), 1.0)

    def y(ms):
        ms = min(max(ms, lo), hi)
        return TOP + plot_h * (1 - (math.log10(ms) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="100%" role="img" aria-label="{escape(title)}">',
           f'<text x="{LEFT}" y="18" font-size="15" font-weight="bold" fill="{colour}">{escape(title)}</text>',
           f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#ccc"/>']
    for v in _log_ticks(lo, hi):
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e3e3e3"/>'
                   f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end">{_fmt_ms(v)}</text>')
    step = max(1, math.ceil(x_max_s / 10))
    for s in range(0, int(x_max_s) + 1, step):
        out.append(f'<text x="{x(s):.1f}" y="{TOP + plot_h + 16}" font-size="11" text-anchor="middle">{s} s</text>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 4}" font-size="11" text-anchor="middle">'
               f'seconds since the exam-start load began</text>')
    for t, ms, ok in points:
        fill = colour if ok else "#000"
        out.append(f'<circle cx="{x(t):.1f}" cy="{y(ms):.1f}" r="2.6" fill="{fill}" fill-opacity="0.55"/>')
    line, t = [], 0.0
    while t <= x_max_s and points:
        window = [ms for (pt, ms, _) in points if t - window_s < pt <= t]
        if window:
            line.append(f"{x(t):.1f},{y(percentile(window, 95)):.1f}")
        t += window_s / 2
    if len(line) > 1:
        out.append(f'<polyline points="{" ".join(line)}" fill="none" stroke="{colour}" stroke-width="2.5"/>'
                   f'<text x="{LEFT + plot_w - 4}" y="{TOP + 14}" font-size="11" text-anchor="end">'
                   f'line: P95 of the last {window_s:g} s</text>')
    out.append("</svg>")
    return "\n".join(out)


def grouped_bars(title, categories, series, unit="ms"):
    """Horizontal grouped bars on a linear axis: categories (e.g. P25..P95), series
    [(label, colour, [value per category])]. A missing value is drawn as 'n/a'."""
    values = [v for _, _, vs in series for v in vs if v is not None]
    v_max = max(values) if values else 1.0
    bar_h, gap = 13, 10
    group_h = bar_h * len(series) + gap
    height = TOP + group_h * len(categories) + 36
    plot_w = WIDTH - 120 - RIGHT - 80
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="100%" '
           f'role="img" aria-label="{escape(title)}">',
           f'<text x="10" y="18" font-size="15" font-weight="bold">{escape(title)}</text>']
    for ci, cat in enumerate(categories):
        gy = TOP + ci * group_h
        out.append(f'<text x="110" y="{gy + bar_h * len(series) / 2 + 4}" font-size="12" '
                   f'text-anchor="end">{escape(cat)}</text>')
        for si, (label, colour, vs) in enumerate(series):
            v = vs[ci]
            by = gy + si * bar_h
            w = 0 if v is None else max(1.0, plot_w * v / v_max)
            text = "n/a" if v is None else f"{v:,.0f} {unit}"
            out.append(f'<rect x="120" y="{by}" width="{w:.1f}" height="{bar_h - 2}" fill="{colour}"/>'
                       f'<text x="{124 + w:.1f}" y="{by + bar_h - 3}" font-size="11">{text}</text>')
    ly = height - 14
    for si, (label, colour, _) in enumerate(series):
        lx = 120 + si * 260
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colour}"/>'
                   f'<text x="{lx + 16}" y="{ly}" font-size="12">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out)
