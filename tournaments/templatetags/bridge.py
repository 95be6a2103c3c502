"""Bridge notation for templates: suit symbols, seats, vulnerability, scores, the clock."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from tournaments.deals import hands_of
from tournaments.models import Direction, RoundStatus, ScoringMethod, TournamentStatus
from tournaments.selectors.boards import board_numbers_at
from tournaments.timezones import zone_label

register = template.Library()

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED = {"♥", "♦"}
MINUS = "\u2212"  # a real minus sign lines up with "+" in tables of scores

SEAT_SHORT = {
    "N": pgettext_lazy("seat", "N"),
    "E": pgettext_lazy("seat", "E"),
    "S": pgettext_lazy("seat", "S"),
    "W": pgettext_lazy("seat", "W"),
}
SEAT_NAMES = {"N": _("North"), "E": _("East"), "S": _("South"), "W": _("West")}
VULNERABILITY = {
    "None": pgettext_lazy("vulnerability", "None"),
    "NS": pgettext_lazy("vulnerability", "NS"),
    "EW": pgettext_lazy("vulnerability", "EW"),
    "Both": pgettext_lazy("vulnerability", "Both"),
}
DIRECTIONS = {Direction.NS: _("NS"), Direction.EW: _("EW"), Direction.BYE: _("Bye")}
NT = pgettext_lazy("strain", "NT")


def _suit_span(symbol: str) -> SafeString:
    css = "suit red" if symbol in RED else "suit"
    return format_html('<span class="{}">{}</span>', css, symbol)


@register.filter
def suits(text) -> SafeString:
    """Escape `text` and colour its suit symbols (♥♦ red); 'NT' is translated."""
    out = []
    for ch in str(text or ""):
        out.append(_suit_span(ch) if ch in "♠♥♦♣" else format_html("{}", ch))
    html = "".join(out)
    return mark_safe(html.replace("NT", str(NT)))  # every character was escaped above


@register.filter
def strain(code: str) -> SafeString:
    """'S' → coloured ♠, 'NT' → NT."""
    if code == "NT":
        return format_html("{}", NT)
    return _suit_span(SUIT_SYMBOLS.get(code, code))


@register.filter
def contract(result) -> SafeString:
    """A BoardResult's contract with suit symbols ('4♠X'), 'Passed out', or ''."""
    return suits(result.display_contract) if result is not None else ""


@register.filter
def card(lead: str) -> SafeString:
    """A stored lead 'SA' / 'HT' as '♠A' / '♥10'."""
    if not lead:
        return mark_safe("")
    rank = "10" if lead[1:] == "T" else lead[1:]
    return format_html("{}{}", _suit_span(SUIT_SYMBOLS.get(lead[0], lead[0])), rank)


@register.filter
def seat(code: str) -> str:
    return SEAT_SHORT.get(code, code)


@register.filter
def seat_name(code: str) -> str:
    return SEAT_NAMES.get(code, code)


@register.filter
def vulnerability(code: str) -> str:
    return VULNERABILITY.get(code, code)


@register.filter
def direction(code: str) -> str:
    return DIRECTIONS.get(code, code)


def _signed(value: float, decimals: int) -> str:
    text = f"{abs(value):.{decimals}f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else MINUS) + text


@register.filter
def points(value, method: str = ScoringMethod.IMP) -> str:
    """A board score or total: MP as a percentage with 2 decimals and its "%", IMPs
    signed with 2 decimals (cross-IMPs are fractional), XIMP board scores as whole IMPs.
    Bridge players read "+3" as a gain: a positive IMP figure always carries its "+"."""
    if value is None or value == "":
        return ""
    value = float(value)
    if method == ScoringMethod.MP:
        return f"{value:.2f}%"
    if method == ScoringMethod.XIMP and value == int(value):
        return _signed(value, 0)
    return _signed(value, 2)


# A running total reads exactly like a board score (MP %, signed IMPs, whole XIMP sums).
total = register.filter("total", points)


@register.filter
def unit(method: str) -> str:
    return "%" if method == ScoringMethod.MP else "IMP"


@register.filter
def score(value) -> str:
    """An NS score as score sheets write it: '+420', '−50', '0'."""
    if value is None or value == "":
        return ""
    value = int(value)
    if value > 0:
        return f"+{value}"
    return f"{MINUS}{-value}" if value < 0 else "0"


@register.filter
def neg(value):
    """The other side's score: an NS score as EW sees it."""
    return None if value is None or value == "" else -int(value)


@register.filter
def percent(fraction, decimals: int = 1) -> str:
    """0.8333 → '83.3%'."""
    if fraction is None:
        return ""
    return f"{float(fraction) * 100:.{int(decimals)}f}%"


@register.filter
def relative(text: str) -> str:
    """A result relative to the contract, '-2' → '−2' (a real minus)."""
    return str(text or "").replace("-", MINUS)


@register.filter
def minutes(duration) -> str:
    """A timedelta as whole minutes (a round length)."""
    if duration is None:
        return ""
    return f"{duration.total_seconds() / 60:g}"


@register.filter
def zoned(moment, fmt: str = "Y-m-d H:i") -> str:
    """A date-time in the site's time zone with the zone written out,
    '2026-12-01 19:30 UTC+8' (format `fmt` as Django's date filter)."""
    if not moment:
        return ""
    local = timezone.localtime(moment)
    return f"{date_format(local, fmt)} {zone_label(moment)}"


@register.filter
def board_range(tournament, round_number) -> str:
    """The boards a round plays, '5–8' (or '5' for one board a round)."""
    return _numbers_text(tournament.board_numbers(int(round_number)))


def _numbers_text(numbers: range) -> str:
    if len(numbers) == 1:
        return str(numbers[0])
    return f"{numbers[0]}–{numbers[-1]}"


@register.filter
def table_board_range(table, tournament) -> str:
    """The boards a table plays, '5–8': its own set when board sets travel (the
    movement's), else its round's (`board_range`)."""
    return _numbers_text(board_numbers_at(table, tournament))


@register.inclusion_tag("tournaments/_hand.html")
def hand(deal: str, seat_code: str):
    holding = hands_of(deal)[seat_code]
    return {
        "seat": seat_code,
        "rows": [
            {"symbol": SUIT_SYMBOLS[s], "red": s in "HD", "cards": _cards(holding[s])}
            for s in "SHDC"
        ],
    }


def _cards(ranks: str) -> str:
    return " ".join("10" if r == "T" else r for r in ranks) or "—"


def _mmss(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


@register.inclusion_tag("tournaments/_clock.html")
def round_clock(tournament, round, now: datetime | None = None, compact: bool = False):
    """The round clock: what it counts down to and the server's time, for site.js."""
    now = now or timezone.now()
    phase, deadline = "idle", None
    if tournament.status == TournamentStatus.PAUSED:
        phase = "paused"
    elif tournament.status == TournamentStatus.FINISHED:
        phase = "finished"
    elif round is None:
        if tournament.start_at > now:
            phase, deadline = "starts", tournament.start_at
        else:
            phase = "starting"
    elif round.status == RoundStatus.CLOSED:
        phase = "closed"
    elif round.status == RoundStatus.SCHEDULED or round.starts_at > now:
        phase, deadline = "starts", round.starts_at
    elif round.ends_at > now:
        phase, deadline = "ends", round.ends_at
    else:
        phase = "bell"
    return {
        "tournament": tournament,
        "round": round,
        "phase": phase,
        "deadline": deadline,
        "now": now,
        "remaining": _mmss((deadline - now).total_seconds()) if deadline else "",
        "compact": compact,
    }


def bridge_words() -> dict[str, str]:
    """The words of a board every script that draws one shows (the table page, a
    broadcast), in the reader's language: seats, suits, calls, vulnerability, the board."""
    from django.utils.translation import gettext, pgettext

    return {
        "N": pgettext("seat", "North"),
        "E": pgettext("seat", "East"),
        "S": pgettext("seat", "South"),
        "W": pgettext("seat", "West"),
        "seat_N": pgettext("seat initial", "N"),
        "seat_E": pgettext("seat initial", "E"),
        "seat_S": pgettext("seat initial", "S"),
        "seat_W": pgettext("seat initial", "W"),
        "suit_S": gettext("spades"),
        "suit_H": gettext("hearts"),
        "suit_D": gettext("diamonds"),
        "suit_C": gettext("clubs"),
        "suit_N": gettext("no trump"),
        "NT": pgettext("strain", "NT"),
        "pass": pgettext("call", "Pass"),
        "double": pgettext("call", "Double"),
        "redouble": pgettext("call", "Redouble"),
        "pass_short": pgettext("call, short", "Pass"),
        "double_short": pgettext("call, short", "X"),
        "redouble_short": pgettext("call, short", "XX"),
        "alert": gettext("Alert"),
        "alerted": gettext("alerted"),
        "dealer": gettext("Dealer"),
        "dealer_mark": pgettext("dealer, one letter", "D"),
        "vul": gettext("Vulnerable"),
        "vul_None": gettext("None vulnerable"),
        "vul_NS": gettext("N-S vulnerable"),
        "vul_EW": gettext("E-W vulnerable"),
        "vul_Both": gettext("Both vulnerable"),
        "board": gettext("Board %(n)s"),
        "auction": gettext("Auction"),
        "passed_out": gettext("Passed out"),
    }
