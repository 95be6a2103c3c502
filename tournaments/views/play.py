"""The table in the browser (RULES 9, issue 17): a player sits down at their online table.

The page itself carries no card. It names the table, the seat, the boards of the round
and the strings of the page (translated here, passed in a JSON block); the script
(static/js/table.js) opens the table server's WebSocket for the board in play and draws
whatever the server's per-seat view holds — nothing more reaches it. Who may open the
page is decided by `services.table_play.board_view` (the same rule as the socket): the four
players of the table, an organiser watching, anyone once the round has closed.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from ..errors import NotAllowed, NotFound
from ..models import PlayMode, RoundStatus, Table
from ..selectors import table_seats, table_server
from ..templatetags.players import player_name


def _strings() -> dict[str, str]:
    """Every word the script shows, in the reader's language."""
    return {
        "N": pgettext("seat", "North"),
        "E": pgettext("seat", "East"),
        "S": pgettext("seat", "South"),
        "W": pgettext("seat", "West"),
        "seat_N": pgettext("seat initial", "N"),
        "seat_E": pgettext("seat initial", "E"),
        "seat_S": pgettext("seat initial", "S"),
        "seat_W": pgettext("seat initial", "W"),
        "suit_S": _("spades"),
        "suit_H": _("hearts"),
        "suit_D": _("diamonds"),
        "suit_C": _("clubs"),
        "suit_N": _("no trump"),
        "NT": pgettext("strain", "NT"),
        "pass": pgettext("call", "Pass"),
        "double": pgettext("call", "Double"),
        "redouble": pgettext("call", "Redouble"),
        "pass_short": pgettext("call, short", "Pass"),
        "double_short": pgettext("call, short", "X"),
        "redouble_short": pgettext("call, short", "XX"),
        "alert": _("Alert"),
        "alert_placeholder": _("Explain your call to the opponents (optional)"),
        "alerted": _("alerted"),
        "dealer": _("Dealer"),
        "dealer_mark": pgettext("dealer, one letter", "D"),
        "vul": _("Vulnerable"),
        "vul_None": _("None vulnerable"),
        "vul_NS": _("N-S vulnerable"),
        "vul_EW": _("E-W vulnerable"),
        "vul_Both": _("Both vulnerable"),
        "board": _("Board %(n)s"),
        "contract": _("Contract"),
        "declarer": _("Declarer"),
        "by": _("%(contract)s by %(seat)s"),
        "passed_out": _("Passed out"),
        "tricks": _("Tricks"),
        "we": _("We"),
        "they": _("They"),
        "your_turn": _("Your turn"),
        "your_turn_dummy": _("Your turn: play from dummy"),
        "waiting_for": _("Waiting for %(seat)s"),
        "dummy": _("Dummy"),
        "you": _("You"),
        "last_trick": _("Last trick"),
        "hide_last_trick": _("Hide the last trick"),
        "no_last_trick": _("No trick played yet"),
        "claim": _("Claim"),
        "concede": _("Concede all"),
        "claim_title": _("Claim or concede"),
        "claim_how_many": _("Tricks your side takes of the %(n)s still to play"),
        "claim_send": _("Send the claim"),
        "cancel": _("Cancel"),
        "claim_by": _("%(seat)s claims %(tricks)s of the remaining tricks"),
        "claim_waiting": _("Waiting for the opponents' answer"),
        "accept": _("Accept"),
        "reject": _("Reject"),
        "bidding_box": _("Bidding box"),
        "auction": _("Auction"),
        "your_hand": _("Your hand"),
        "board_over": _("Board %(n)s is over"),
        "result_made": _("%(contract)s by %(seat)s: %(tricks)s tricks"),
        "ns_score": _("N-S score"),
        "ew_score": _("E-W score"),
        "next_board": _("Next board"),
        "all_boards_played": _("All boards of this round are played. Wait for the bell."),
        "round_closed": _("Round %(n)s has closed."),
        "next_table": _("Go to your table for round %(n)s"),
        "no_next_table": _("You have no table in the next round."),
        "to_tournament": _("Back to the tournament"),
        "connecting": _("Connecting…"),
        "connected": _("Connected"),
        "reconnecting": _("Connection lost: reconnecting…"),
        "refused": _("This table cannot be shown."),
        "cards_left": _("%(n)s cards"),
        "watching": _("Watching"),
        "watching_note": _(
            "You are not seated at this table: every hand is shown as the server sends it."
        ),
        # The round clock, as templates/tournaments/_clock.html words it (same msgids).
        "clock_ends_in": _("Round %(n)s ends in"),
        "clock_starts_in": _("Round %(n)s starts in"),
        "clock_ends_at": pgettext("round ends", "at %(at)s"),
        "clock_starts_at": pgettext("round starts", "at %(at)s"),
        "clock_paused": _("Paused by the director"),
        "clock_done": _("Time is up"),
        "play_card": _("Play %(card)s"),
        "keys_help": _(
            "Keyboard: Tab to a card or call, Enter to play it; L shows the last trick."
        ),
    }


def _names(table: Table) -> dict[str, str]:
    """seat -> the name the players go by (their display name, or user name)."""

    taken = table_seats.table_seats(table)
    users = get_user_model().objects.select_related("profile").in_bulk(taken.values())
    return {seat: player_name(users[user_id]) for seat, user_id in taken.items()}


def play_table(request, tournament_id: int, table_id: int):
    table = get_object_or_404(
        Table.objects.select_related("round__tournament", "ns_pair", "ew_pair"),
        pk=table_id,
        round__tournament_id=tournament_id,
    )
    tournament, round = table.round.tournament, table.round
    if tournament.play != PlayMode.ONLINE:
        raise Http404(_("This tournament is played elsewhere: its boards are not played here."))
    # The board in play: the first not over at this table (boards are played in order).
    # Asking the service is also the page's permission check; it sends no hand, so the
    # page leaves the seats as they are until the socket sends the first one.
    try:
        numbers, current = table_server.board_in_play(table=table, user=request.user)
    except NotAllowed as error:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied(str(error)) from error
    except NotFound as error:
        raise Http404(str(error)) from error
    seat = table_seats.seat_of(table, request.user)
    config = {
        "table": table.pk,
        "tableNumber": table.number,
        "round": round.number,
        "seat": seat,
        "boards": numbers,
        "current": current,
        "closed": round.status == RoundStatus.CLOSED,
        "names": _names(table),
        "wsPath": f"/ws/tables/{table.pk}/boards/",
        "tournamentUrl": reverse("tournament", args=[tournament.pk]),
        "playUrl": reverse("play_table", args=[tournament.pk, 0]),
        "strings": _strings(),
        # The clock follows the socket's `round` message: the server's time (the
        # countdown runs on it) and the zone its end is written in.
        "serverNow": timezone.now().isoformat(),
        "timeZone": timezone.get_current_timezone_name(),
    }
    return render(
        request,
        "tournaments/play_table.html",
        {
            "tournament": tournament,
            "round": round,
            "table": table,
            "seat": seat,
            "config": config,
            "now": timezone.now(),
        },
    )
