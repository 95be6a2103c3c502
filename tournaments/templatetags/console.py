"""Template tags of the director's console: the progress grid's rows, and the admin
home page's line about disputes waiting."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from ..selectors import console as console_selectors

register = template.Library()

# Placeholders reversed once: a 1,000-table round has 4,000 cells, each a link.
_TABLE, _BOARD = 987654321, 876543210


@register.simple_tag
def disputes_waiting() -> int:
    """Disputed results waiting for the director, across every tournament (one query)."""
    return console_selectors.dispute_count()


@register.simple_tag
def progress_rows(progress, tournament_id: int, linked: bool) -> SafeString:
    """The progress grid's <tr> rows, built here rather than through the template
    engine: a 1,000-table round took seconds to draw cell by cell."""
    labels = {
        console_selectors.CONFIRMED: "✓ " + _("confirmed"),
        console_selectors.ENTERED: _("entered"),
        console_selectors.DISPUTED: "⚑ " + _("disputed"),
        console_selectors.CUT_OFF: _("cut off"),
        console_selectors.MISSING: "— " + _("missing"),
    }
    url = reverse("console_result", args=[tournament_id, _TABLE, _BOARD])
    title = _("Director’s result")

    def cell(table_id: int, c) -> SafeString:
        label = labels[c.state]
        if not linked:
            return format_html('<td class="cell s-{}">{}</td>', c.state, label)
        href = url.replace(str(_TABLE), str(table_id)).replace(str(_BOARD), str(c.board_number))
        return format_html(
            '<td class="cell s-{}"><a href="{}" title="{}">{}</a></td>',
            c.state,
            href,
            title,
            label,
        )

    rows = []
    for row in progress.rows:
        cells = mark_safe("".join(cell(row.table_id, c) for c in row.cells))
        rows.append(
            format_html(
                '<tr{}><th class="num">{}</th><td>{}</td><td>{}</td>{}</tr>',
                mark_safe(' class="finished"') if row.finished else "",
                row.number,
                row.ns,
                row.ew,
                cells,
            )
        )
    return mark_safe("\n".join(rows))
