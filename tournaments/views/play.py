"""The table in the browser (RULES 9, issue 17): a player sits down at their online table.

The page itself carries no card. It names the table, the seat, the boards of the round
and the strings of the page (translated here, passed in a JSON block); the script
(static/js/table.js) opens the table server's WebSocket for the board in play and draws
whatever the server's per-seat view holds — nothing more reaches it. Who may open the
page is decided by `services.table_play.board_view` (the same rule as the socket): the four
players of the table, an organiser watching, anyone once the round has closed. Anyone else
(anonymous too) watches as a kibitzer (RULES 2): the page opens the kibitzer's socket,
which sends how far the board has come and no card of a running round — or every hand when
the organiser lets kibitzers watch live, except to a player of the tournament.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from .. import round_rules
from ..errors import NotAllowed, NotFound
from ..models import (
    PlayMode,
    Round,
    RoundStatus,
    Table,
    Tournament,
    TournamentStatus,
)
from ..selectors import club as club_reads
from ..selectors import programs, table_seats, table_server
from ..services import table_play
from ..services.permissions import RUN_CLOCK
from ..templatetags.bridge import bridge_words
from ..templatetags.players import player_name
from . import programs as program_pages
from .format_pages import pages_of


def _strings() -> dict[str, str]:
    """Every word the script shows, in the reader's language."""
    return {
        **bridge_words(),
        "alert_placeholder": _("Explain your call to the opponents (optional)"),
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
        "clock_starting": _("Round %(n)s is starting…"),
        "clock_bell": _("Round %(n)s: time is up"),
        "clock_closed": _("Round %(n)s closed"),
        "round_starts_status": _("Round %(n)s starts in %(time)s: play begins then."),
        "time_up_status": _("Time is up: no more calls or cards. The bell is on its way."),
        "paused_note": _("Play resumes when the director resumes the tournament."),
        "resumed": _("The director resumed play: go on."),
        # Claims (Law 68): the total with the claim and what it makes of the contract.
        "claims_total": _("%(seat)s claims %(total)s tricks"),
        "concedes": _("%(seat)s concedes the remaining tricks"),
        "claim_headline": _("%(claim)s: %(result)s"),
        "claim_making": _("%(contract)s making"),
        "claim_over": _("%(contract)s making with %(n)s over"),
        "claim_down": _("%(contract)s down %(n)s"),
        "claim_of": _("%(tricks)s of the %(n)s tricks still to play"),
        "claim_statement": _("%(seat)s's line of play"),
        "claiming": _("Claiming"),
        "statement_label": _("Your line of play (optional)"),
        "statement_placeholder": _("e.g. Draw trumps, then the clubs are good."),
        "claim_shows_hand": _("Your hand is shown to the opponents with the claim."),
        "alert_toggle": _("Alert…"),
        # The bell and the end.
        # A kibitzer of a running round sees how far the board has come, no card.
        "kibitz_auction": _("The board is being bid."),
        "kibitz_play": _("Trick %(n)s of 13 is being played."),
        "kibitz_over": _("Played at this table: its cards are shown when the round closes."),
        "kibitz_no_auction": _("The auction is shown when the round closes."),
        "tournament_over": _("The tournament is over."),
        "see_results": _("See the results"),
        "play_card": _("Play %(card)s"),
        "keys_title": _("Keys:"),
        "keys_help": _(
            "type a call (1n, 4s, p, x, xx) or a card (sq; its rank alone when only one"
            " suit fits), ←/→ to move, Enter to play. L shows the last trick, Esc clears."
        ),
        "kbd_typed": _("Typed: %(keys)s"),
        "kbd_not_now": _("%(what)s cannot be played now"),
        "kbd_which_suit": _("Which suit? Type it."),
    }


def _clock(tournament: Tournament, round: Round, table: Table) -> dict:
    """The round's clock for the page's first drawing, in the socket snapshot's shape
    (docs/PLAY_PROTOCOL.md, `clock`): the table's own bell when the director gave it extra
    time. The socket's state replaces it at once."""
    return round_rules.clock_state(
        round_number=round.number,
        round_status=round.status,
        starts_at=round.starts_at,
        ends_at=round_rules.table_bell(round_ends_at=round.ends_at, table_ends_at=table.ends_at),
        paused=tournament.status == TournamentStatus.PAUSED,
        now=timezone.now(),
    )


def _names(table: Table) -> dict[str, str]:
    """seat -> the name the players go by (their display name, or user name)."""

    taken = table_seats.table_seats(table)
    users = get_user_model().objects.select_related("profile").in_bulk(taken.values())
    return {seat: player_name(users[user_id]) for seat, user_id in taken.items()}


def _online_table(tournament_id: int, round_number: int, table_number: int) -> Table:
    table = get_object_or_404(
        Table.objects.select_related("round__tournament", "ns_pair", "ew_pair"),
        round__tournament_id=tournament_id,
        round__number=round_number,
        number=table_number,
    )
    if table.round.tournament.play != PlayMode.ONLINE:
        raise Http404(_("This tournament is played elsewhere: its boards are not played here."))
    return table


def play_table(request, tournament_id: int, round_number: int, table_number: int):
    table = _online_table(tournament_id, round_number, table_number)
    tournament, round = table.round.tournament, table.round
    # The board in play: the first not over at this table (boards are played in order).
    # Asking the service is also the page's permission check; it sends no hand, so the
    # page leaves the seats as they are until the socket sends the first one.
    kibitz = False
    library = pages_of(tournament).format.library_deals
    try:
        try:
            numbers, current = table_server.board_in_play(
                table=table, user=request.user, library=library
            )
        except NotAllowed:
            # Neither seated here nor a director, the round running: a kibitzer.
            kibitz = True
            numbers, current = table_server.board_in_play(
                table=table, user=request.user, kibitz=True, library=library
            )
    except NotFound as error:
        raise Http404(str(error)) from error
    seat = table_seats.seat_of(table, request.user)
    closed = round.status == RoundStatus.CLOSED
    strings = _strings()
    # The format's own part of a table's page (a club table: the lobby to go back to, no
    # round clock, "Next board" reloading the page, its robots named as robots).
    club, robots, club_words = pages_of(tournament).table_extras(table)
    strings.update(club_words)
    if kibitz:
        # What the socket will send them, said before it does (the server decides).
        live = tournament.kibitz_live and not table_play.plays_in_tournament(
            tournament_id=tournament.pk, user=request.user
        )
        strings["watching"] = _("Kibitzing")
        strings["watching_note"] = (
            _("You are kibitzing: every hand is shown live.")
            if live
            else _(
                "You are kibitzing: you see how far each board has come; its cards are"
                " shown when the round closes."
            )
        )
    config = {
        "table": table.pk,
        "tableNumber": table.number,
        "round": round.number,
        "seat": seat,
        "boards": numbers,
        "current": current,
        "closed": closed,
        "kibitz": kibitz,
        "names": {
            seat: club_reads.robot_name(seat) if club and seat in robots else name
            for seat, name in _names(table).items()
        },
        "wsPath": f"/ws/tables/{table.pk}/boards/",
        "tournamentUrl": reverse("tournament", args=[tournament.pk]),
        # The next round's table by its id (the socket's `next.table`): that old address
        # redirects to the table's own, by round and table number.
        "playUrl": reverse("play_table_by_id", args=[tournament.pk, 0]),
        "strings": strings,
        "club": club,
        "clock": _clock(tournament, round, table),
        # After the bell, what it made of the board shown (the bell's own sentence).
        "cutOff": (
            table_server.stored_cut_off(table=table, board_number=current) if closed else None
        ),
        "resultsUrl": reverse("results", args=[tournament.pk]),
        "tournamentOver": tournament.status == TournamentStatus.FINISHED,
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
            # A team match's table: which room of which match it is (RULES 11).
            "room": pages_of(tournament).room_of(table),
            # Its seats played by programs through the Blue Chip gateway (SPEC 14), and
            # the way to give one to a program (the player's own, or a director's any).
            "programs": programs.table_programs(table_id=table.pk),
            "may_seat_program": not closed
            and club is None
            and (seat is not None or request.user.has_perm(RUN_CLOCK)),
            "club": club,
        },
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def play_table_program(request, tournament_id: int, round_number: int, table_number: int):
    """A seated player gives their own seat to an outside program (SPEC 14), or a
    director any seat: `programs.reserve` decides; the answer shows the ticket once."""
    table = _online_table(tournament_id, round_number, table_number)
    seat = table_seats.seat_of(table, request.user)
    return program_pages.seat_program(
        request,
        table=table,
        seats=[seat] if seat and not request.user.has_perm(RUN_CLOCK) else None,
        back_url=reverse("play_table", args=[tournament_id, round_number, table_number]),
        console=False,
    )
