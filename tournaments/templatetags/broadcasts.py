"""The broadcast page's words (templates/broadcasts/broadcast.html, static/js/broadcast.js):
every string the script shows, in the reader's language, for the page to pass in a JSON
block. A tag rather than a view's context, so that any page drawing a broadcast (a live
one, or a match read from a LIN file) carries the same words."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .bridge import bridge_words

register = template.Library()


@register.simple_tag
def broadcast_strings() -> dict[str, str]:
    return {
        **bridge_words(),
        "ns": _("NS"),
        "ew": _("EW"),
        "room_open": _("Open room"),
        "room_closed": _("Closed room"),
        "room_table": _("Table %(n)s"),
        "table_n": _("table %(t)s"),
        "live": pgettext("broadcast", "Live"),
        "finished": _("Finished"),
        "ended": _("This broadcast has ended."),
        "connecting": _("Connecting…"),
        "reconnecting": _("Connection lost: reconnecting…"),
        "spectators": _("%(n)s watching"),
        "delay_note": _("Boards are shown %(n)s minutes after every table has finished them."),
        "boards": pgettext("broadcast", "Boards"),
        "imps": _("IMPs"),
        "ns_score": _("NS score"),
        "score": _("Score"),
        "carry_over": _("Carry-over: %(n)s IMPs"),
        "not_shown": _(
            "Board %(n)s is shown when every table playing it (both rooms among them) has "
            "finished it."
        ),
        "not_shown_delay": _(
            "Board %(n)s is shown %(m)s minutes after every table playing it (both rooms among "
            "them) has finished it."
        ),
        "next_release": _("Next board shown at %(t)s."),
        "progress_auction": _("Bidding"),
        "progress_play": _("Trick %(n)s"),
        "progress_over": _("Finished"),
        "progress_waiting": _("Not started"),
        "first": _("First card"),
        "back": _("Previous card"),
        "forward": _("Next card"),
        "last": _("Last card"),
        "play": pgettext("step through the cards", "Play"),
        "pause": _("Pause"),
        "step_start": _("Before the opening lead"),
        "step_card": _("Trick %(trick)s, card %(card)s"),
        "step_end": _("All cards played"),
        "no_play": _("No card played"),
        "tricks_won": _("Tricks: NS %(ns)s · EW %(ew)s"),
        "contract": _("Contract"),
        "result": _("Result"),
        "made": _("%(contract)s by %(seat)s, %(tricks)s tricks"),
        "adjusted": _("Adjusted score"),
        "not_finished": _("Not finished"),
        "refused": _("Refused"),
        "refused_because": _("Refused by the rules of play: %(reason)s"),
        "commentary": _("Commentary"),
        "no_comments": _("No commentary yet."),
        "comment_label": _("Add a line of commentary"),
        "comment_send": _("Send"),
        "comment_failed": _("The commentary could not be sent: try again."),
        "choose_board": _("Show board %(n)s"),
    }


@register.filter
def get_item(mapping, key):
    """`mapping[key]`, or None (the console's broadcasts by match or table)."""
    return mapping.get(key) if mapping else None
