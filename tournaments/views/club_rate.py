"""The Rate's pages (RULES 13): the Rate list and a player's Rate week by week, with the
chart drawn on the server as SVG (no script, the page's CSP untouched)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from ..selectors import club_rate

PAGE = 100
# The chart's drawing area, in SVG units (it scales to the page's width).
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 480, 230, 40, 10, 12, 30


@dataclass(frozen=True)
class Chart:
    points: str  # the polyline's "x,y x,y …"
    dots: list[tuple[float, float, object]]  # (x, y, the week's point)
    ticks: list[tuple[float, str]]  # (y, label) on the Rate axis
    labels: list[tuple[float, str]]  # (x, label) on the weeks' axis
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    bottom_edge: int = HEIGHT - BOTTOM


def chart_of(weeks: list) -> Chart | None:
    """The Rate week by week as a line: weeks along, the Rate up (a 10-point band at the
    least, so a steady Rate reads as steady, not as noise magnified)."""
    if not weeks:
        return None
    rates = [w.rate for w in weeks]
    low, high = min(rates), max(rates)
    middle = (low + high) / 2
    half = max((high - low) / 2 * 1.15, 5.0)
    low, high = middle - half, middle + half
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (span_x / 2 if len(weeks) == 1 else span_x * i / (len(weeks) - 1))

    def y(rate: float) -> float:
        return TOP + span_y * (high - rate) / (high - low)

    dots = [(round(x(i), 1), round(y(w.rate), 1), w) for i, w in enumerate(weeks)]
    step = max(1, -(-len(weeks) // 6))
    shown = [i for i in range(len(weeks)) if i % step == 0 or i == len(weeks) - 1]
    if len(shown) > 1 and shown[-1] - shown[-2] < step:
        shown.pop(-2)  # the last week's label, not two crowded ones
    labels = [(round(x(i), 1), f"{timezone.localtime(weeks[i].starts_at):%m-%d}") for i in shown]
    # Ticks at round Rates: a step of 1, 2, 2.5 or 5 (× 10ⁿ) giving four to six lines.
    tick = next(t for t in (0.5, 1, 2, 2.5, 5, 10, 20, 25, 50) if (high - low) / t <= 6)
    first = math.ceil(low / tick) * tick
    ticks = []
    value = first
    while value <= high + 1e-9:
        ticks.append((round(y(value), 1), f"{value:g}"))
        value += tick
    return Chart(
        points=" ".join(f"{dx},{dy}" for dx, dy, _w in dots), dots=dots, ticks=ticks, labels=labels
    )


def rate_list(request: HttpRequest) -> HttpResponse:
    paginator = Paginator(range(club_rate.listed_count()), PAGE)
    page = paginator.get_page(request.GET.get("page"))
    lines = club_rate.rate_list(limit=PAGE, offset=(page.number - 1) * PAGE)
    return render(request, "club/rate_list.html", {"lines": lines, "page": page})


def player(request: HttpRequest, user_id: int) -> HttpResponse:
    found = club_rate.player_rate(user_id=user_id)
    if found is None:
        raise Http404
    return render(
        request, "club/rate_player.html", {"player": found, "chart": chart_of(found.weeks)}
    )
