"""Small line charts drawn server-side as inline SVG (no chart library, no JS)."""

from __future__ import annotations

import math

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 30


def _nice_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    value = first
    while value <= hi + 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _fmt(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}".rstrip("0")


@register.simple_tag
def line_chart(
    values,
    labels,
    *,
    invert: bool = False,
    baseline: float | None = None,
    title: str = "",
    tips=None,
    integer: bool = False,
    css: str = "",
) -> SafeString:
    """A line through `values` (None leaves a gap) over categorical `labels`.

    `invert` puts the smallest value on top (positions: 1st is best); `baseline`
    draws a reference line (0 IMPs, 50 %); `tips` are hover texts, one per point.
    """
    values = list(values)
    labels = [str(label) for label in labels]
    present = [v for v in values if v is not None]
    if not present:
        return mark_safe("")
    lo, hi = min(present), max(present)
    if baseline is not None:
        lo, hi = min(lo, baseline), max(hi, baseline)
    if integer:
        lo, hi = math.floor(lo), math.ceil(hi)
    if hi - lo < (1 if integer else 1e-9):
        lo, hi = lo - 1, hi + 1
    if invert and integer:
        lo = max(lo, 1)
    pad = (hi - lo) * 0.08
    lo_d, hi_d = lo - pad, hi + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = max(len(values), 1)

    def x(i: int) -> float:
        return LEFT + (i + 0.5) * plot_w / n

    def y(v: float) -> float:
        frac = (v - lo_d) / (hi_d - lo_d)
        return TOP + (frac if invert else 1 - frac) * plot_h

    parts = [
        f'<svg class="chart {escape(css)}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(title)}</title>",
    ]
    ticks = _nice_ticks(lo, hi)
    if integer:
        ticks = [t for t in ticks if float(t).is_integer()] or [lo, hi]
    for tick in ticks:
        ty = y(tick)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{ty:.1f}" y2="{ty:.1f}"/>'
            f'<text class="tick" x="{LEFT - 8}" y="{ty + 4:.1f}" text-anchor="end">'
            f"{escape(_fmt(tick))}</text>"
        )
    if baseline is not None:
        by = y(baseline)
        parts.append(
            f'<line class="baseline" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{by:.1f}" y2="{by:.1f}"/>'
        )
    for i, label in enumerate(labels):
        parts.append(
            f'<text class="tick" x="{x(i):.1f}" y="{HEIGHT - 10}" text-anchor="middle">'
            f"{escape(label)}</text>"
        )
    segment: list[str] = []
    segments = []
    for i, v in enumerate(values):
        if v is None:
            if segment:
                segments.append(segment)
            segment = []
            continue
        segment.append(f"{x(i):.1f},{y(v):.1f}")
    if segment:
        segments.append(segment)
    for seg in segments:
        parts.append(f'<polyline class="line" points="{" ".join(seg)}"/>')
    tips = list(tips) if tips is not None else [None] * len(values)
    for i, v in enumerate(values):
        if v is None:
            continue
        tip = tips[i] if i < len(tips) and tips[i] else _fmt(v)
        parts.append(
            f'<circle class="dot" cx="{x(i):.1f}" cy="{y(v):.1f}" r="4">'
            f"<title>{escape(tip)}</title></circle>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above
