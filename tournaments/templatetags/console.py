"""Template tags of the director's console: the progress grid's rows, and the admin
home page's line about disputes waiting."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from ..selectors import console as console_selectors
from .bridge import zoned

register = template.Library()

# Placeholders reversed once: a 1,000-table round has 4,000 cells, each a link.
_TABLE, _BOARD = 987654321, 876543210


@register.simple_tag
def disputes_waiting() -> int:
    """Disputed results waiting for the director, across every tournament (one query)."""
    return console_selectors.dispute_count()


def _clock(seconds: int) -> str:
    minutes, secs = divmod(max(0, seconds), 60)
    return f"{minutes}:{secs:02d}"


# A player to act who has been idle this long is shown as waited on (the console's
# eye goes to the tables that stand still).
IDLE_WARN_SECONDS = 60


def _live_cell(
    live,
    now,
    seat_names: dict[str, str],
    extra_url: str = "",
    robot_url: str = "",
    program_url: str = "",
) -> SafeString:
    """What an online table is doing: board, trick, whose turn, idle time, and who is
    connected (a dot a seat, with since when)."""
    if live.board is None:
        doing = _("every board played")
    elif live.phase == "auction":
        doing = _("board %(b)s · auction · %(seat)s to call") % {
            "b": live.board,
            "seat": seat_names.get(live.turn or "", ""),
        }
    elif live.phase == "play":
        doing = _("board %(b)s · %(contract)s · trick %(t)s · %(seat)s to play") % {
            "b": live.board,
            "contract": live.contract,
            "t": live.trick,
            "seat": seat_names.get(live.turn or "", ""),
        }
    elif live.phase == "claim":
        doing = _("board %(b)s · trick %(t)s · a claim waits for an answer") % {
            "b": live.board,
            "t": live.trick,
        }
    else:
        doing = _("board %(b)s · over") % {"b": live.board}
    idle = ""
    if live.idle_seconds is not None and live.turn:
        idle = format_html(
            ' <span class="idle{}" data-idle="{}">{}</span>',
            " long" if live.idle_seconds >= IDLE_WARN_SECONDS else "",
            live.idle_seconds,
            _("idle %(t)s") % {"t": _clock(live.idle_seconds)},
        )
    dots = []
    for seat in ("N", "E", "S", "W"):
        since = live.connected_for(seat, now)
        robot = seat in live.robots
        if robot:
            title = _("%(seat)s: a robot plays this seat") % {"seat": seat_names[seat]}
        elif since is None:
            title = _("%(seat)s: not connected") % {"seat": seat_names[seat]}
        else:
            title = _("%(seat)s: connected for %(t)s") % {
                "seat": seat_names[seat],
                "t": _clock(since),
            }
        dots.append(
            format_html(
                '<span class="seat-dot {}" data-seat="{}" title="{}">{}</span>',
                "robot" if robot else "on" if since is not None else "off",
                seat,
                title,
                seat_names[f"initial_{seat}"],
            )
        )
    extra = ""
    if live.ends_at is not None:
        extra = format_html(
            ' <span class="extra-time">{}</span>',
            _("extra time to %(t)s") % {"t": zoned(live.ends_at, "H:i:s")},
        )
    button = ""
    if extra_url and live.board is not None:
        button = format_html(
            ' <span class="live-tools"><a class="button small extra-time-link" href="{}">{}…</a>'
            '{}{}</span>',
            extra_url,
            _("Extra time"),
            format_html(' <a class="button small robot-link" href="{}">{}…</a>', robot_url,
                        _("Robot in a seat"))
            if len(live.connected) < 4
            else "",
            format_html(' <a class="button small program-link" href="{}">{}</a>', program_url,
                        _("Seat a program…"))
            if program_url
            else "",
        )  # fmt: skip
    return format_html(
        '<td class="live"><span class="doing">{}</span>{}{}<span class="seats">{}</span>{}</td>',
        doing,
        idle,
        extra,
        mark_safe("".join(dots)),
        button,
    )


@register.simple_tag
def progress_rows(
    progress,
    tournament_id: int,
    linked: bool,
    now=None,
    run_clock: bool = False,
    broadcasts: dict | None = None,
    may_broadcast: bool = False,
) -> SafeString:
    """The progress grid's <tr> rows, built here rather than through the template
    engine: a 1,000-table round took seconds to draw cell by cell. An online table's
    number links to its live view, its board in play says so (and links there, not to a
    result form), and a column says what it is doing."""
    now = now or timezone.now()
    labels = {
        console_selectors.CONFIRMED: "✓ " + _("confirmed"),
        console_selectors.ENTERED: _("entered"),
        console_selectors.DISPUTED: "⚑ " + _("disputed"),
        console_selectors.CUT_OFF: _("cut off"),
        console_selectors.MISSING: "— " + _("missing"),
    }
    online = bool(progress.live)
    if online:
        labels[console_selectors.MISSING] = "· " + _("to come")
    url = reverse("console_result", args=[tournament_id, _TABLE, _BOARD])
    title = _("Director’s result")
    play_url = reverse("play_table", args=[tournament_id, progress.round.number, _TABLE])
    watch = _("Watch table %(n)s") % {"n": _TABLE}
    extra_url = reverse("console_extra_time", args=[tournament_id, _TABLE])
    robot_url = reverse("console_robot", args=[tournament_id, _TABLE])
    program_url = reverse("console_program", args=[tournament_id, _TABLE])
    # Each cell names its board: on a phone the grid is a card a table, without the head.
    board_label = f"{_('Board')} {_BOARD}"
    seat_names = {
        "N": pgettext("seat", "North"),
        "E": pgettext("seat", "East"),
        "S": pgettext("seat", "South"),
        "W": pgettext("seat", "West"),
        "initial_N": pgettext("seat initial", "N"),
        "initial_E": pgettext("seat initial", "E"),
        "initial_S": pgettext("seat initial", "S"),
        "initial_W": pgettext("seat initial", "W"),
    }

    travelling = not progress.board_numbers
    # An online table's broadcast (RULES 12): its page, or a director's way to start one.
    shown = (broadcasts or {}).get("by_table", {})
    may_start = may_broadcast and bool((broadcasts or {}).get("may_start"))
    broadcast_url = reverse("broadcast", args=[_TABLE])
    start_url = reverse("console_broadcast_start", args=[tournament_id]) + "?table="
    broadcast_word, start_word = _("Broadcast"), _("Broadcast…")

    def cell(row, c, live) -> SafeString:
        if (
            live is not None
            and live.board == c.board_number
            and c.state == console_selectors.MISSING
        ):
            return format_html(
                '<td class="cell s-playing" data-label="{}"><a href="{}" title="{}">▶ {}</a></td>',
                board_label.replace(str(_BOARD), str(c.board_number)),
                play_url.replace(str(_TABLE), str(row.number)),
                watch.replace(str(_TABLE), str(row.number)),
                _("in play"),
            )
        label = labels[c.state]
        board = board_label.replace(str(_BOARD), str(c.board_number))
        if travelling:
            # No column head names the board: each table plays its own set.
            label = f"{c.board_number} · {label}"
        if not linked:
            return format_html(
                '<td class="cell s-{}" data-label="{}">{}</td>', c.state, board, label
            )
        href = url.replace(str(_TABLE), str(row.table_id)).replace(str(_BOARD), str(c.board_number))
        return format_html(
            '<td class="cell s-{}" data-label="{}"><a href="{}" title="{}">{}</a></td>',
            c.state,
            board,
            href,
            title,
            label,
        )

    rows = []
    for row in progress.rows:
        live = progress.live.get(row.table_id) if online else None
        cells = mark_safe("".join(cell(row, c, live) for c in row.cells))
        number = str(row.number)
        if online:
            number = format_html(
                '<a class="table-link" href="{}" title="{}">{}</a>',
                play_url.replace(str(_TABLE), str(row.number)),
                watch.replace(str(_TABLE), str(row.number)),
                row.number,
            )
            listed = shown.get(row.table_id)
            if listed is not None:
                number = format_html(
                    '{} <a class="broadcast-link" href="{}">{}</a>',
                    number,
                    broadcast_url.replace(str(_TABLE), str(listed.id)),
                    broadcast_word,
                )
            elif may_start:
                number = format_html(
                    '{} <a class="broadcast-start" href="{}{}">{}</a>',
                    number,
                    start_url,
                    row.table_id,
                    start_word,
                )
        rows.append(
            format_html(
                '<tr{} id="table-{}" data-table="{}"><th class="num">{}</th><td>{}</td><td>{}</td>'
                "{}{}</tr>",
                mark_safe(' class="finished"') if row.finished else "",
                row.number,
                row.number,
                number,
                row.ns,
                row.ew,
                _live_cell(
                    live,
                    now,
                    seat_names,
                    extra_url.replace(str(_TABLE), str(row.table_id)) if run_clock else "",
                    robot_url.replace(str(_TABLE), str(row.table_id)),
                    program_url.replace(str(_TABLE), str(row.table_id)),
                )
                if live is not None
                else "",
                cells,
            )
        )
    return mark_safe("\n".join(rows))
