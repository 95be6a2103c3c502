"""A team match (both rooms) or one online table as BBO's vugraph LIN (RULES 12).

The match is built as a `vugraph.VugraphMatch` and written by `vugraph.write_lin`, so the
file is the one the core reads back: `vg` (the event, the round as the segment, IMPs,
the first and last board, the teams and their carry-over), `rs` (each room's stored
result), `pn` (the players as seated, each pair's swap applied), and per board and room
`qx`, `md`, `sv`, the calls with their alerts (`mb` with `!`, the explanation in `an`),
the cards in the order played (`pc`) and, for an accepted claim, `mc` (the declaring
side's tricks in the whole board).

Only boards whose deal is public (`visibility.deal_public`: their round has closed) are
written; a match or table with none is refused (`NothingToExport`, 409). A table of an
event played elsewhere has no calls or cards: its rooms carry the deal and `rs` only.
Read in a fixed number of queries (five) whatever the number of boards.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext as _

import play
import vugraph
from scoring import parse_contract

from ..models import (
    Board,
    BoardResult,
    Match,
    PairSeats,
    PlayAction,
    ResultState,
    Table,
    player_name,
)
from ..selectors.board_views import action_of
from ..selectors.boards import boards_at
from ..visibility import deal_public
from .data import NothingToExport

_PLAYERS = [
    f"{side}_pair__{player}__profile" for side in ("ns", "ew") for player in ("player1", "player2")
]


def match_lin(*, match: Match) -> str:
    """The LIN text of `match`'s two rooms (NothingToExport until a board of it is public,
    and for a bye)."""
    return vugraph.write_lin(match_vugraph(match=match))


def table_lin(*, table: Table) -> str:
    """The LIN text of one table (an open room only: NS is "team" 1)."""
    return vugraph.write_lin(table_vugraph(table=table))


def match_filename(match: Match) -> str:
    return f"match-r{match.round.number}-m{match.number}.lin"


def table_filename(table: Table) -> str:
    return f"table-r{table.round.number}-t{table.number}.lin"


def match_vugraph(*, match: Match) -> vugraph.VugraphMatch:
    if match.open_table_id is None or match.closed_table_id is None or match.away is None:
        raise NothingToExport(_("A bye has no boards to export."))
    round = match.round
    tournament = round.tournament
    segment = f"Round {round.number}"
    if tournament.stanzas > 1:
        segment += f" stanza {match.stanza}"
    carry = Decimal(match.carry_over)
    return _build(
        title=tournament.name,
        segment=segment,
        teams=(match.home.name, match.away.name),
        carry_over=(max(carry, Decimal(0)), max(-carry, Decimal(0))),
        rooms=[(vugraph.OPEN, match.open_table_id), (vugraph.CLOSED, match.closed_table_id)],
        nothing=_("Nothing to export yet: the boards of round %(n)s are public once it has closed.")
        % {"n": round.number},
    )


def table_vugraph(*, table: Table) -> vugraph.VugraphMatch:
    round = table.round
    tables = Table.objects.select_related(*_PLAYERS).get(pk=table.pk)
    return _build(
        title=round.tournament.name,
        segment=f"Round {round.number} table {table.number}",
        teams=(_pair(tables.ns_pair), _pair(tables.ew_pair)),
        carry_over=(Decimal(0), Decimal(0)),
        rooms=[(vugraph.OPEN, table.pk)],
        nothing=_("Nothing to export yet: the boards of round %(n)s are public once it has closed.")
        % {"n": round.number},
    )


def _pair(pair) -> str:
    return f"{player_name(pair.player1)} - {player_name(pair.player2)}"


def _build(
    *,
    title: str,
    segment: str,
    teams: tuple[str, str],
    carry_over: tuple[Decimal, Decimal],
    rooms: list[tuple[str, int]],
    nothing: str,
) -> vugraph.VugraphMatch:
    tables = {
        t.pk: t
        for t in Table.objects.filter(pk__in=[pk for _n, pk in rooms]).select_related(
            "round__tournament", *_PLAYERS
        )
    }
    first_table = tables[rooms[0][1]]
    boards = [
        board
        for board in boards_at(first_table).select_related("round").order_by("number")
        if deal_public(board.round)
    ]
    if not boards:
        raise NothingToExport(nothing)
    swapped = set(
        PairSeats.objects.filter(table_id__in=tables, swapped=True).values_list(
            "table_id", "pair_id"
        )
    )
    actions: dict[tuple[int, int], list] = {}
    for row in PlayAction.objects.filter(table_id__in=tables, board__in=boards).order_by(
        "table_id", "board_id", "seq"
    ):
        actions.setdefault((row.table_id, row.board_id), []).append(row)
    results = {
        (r.table_id, r.board_id): r
        for r in BoardResult.objects.filter(table_id__in=tables, board__in=boards)
    }
    players: list[str] = []
    for _name, pk in rooms:
        seats = _seats(tables[pk], swapped)
        players += [_field(seats[seat]) for seat in vugraph.LIN_SEATS]
    first, last = boards[0].number, boards[-1].number
    claimed: dict[tuple[int, str], vugraph.ClaimedResult | None] = {}
    lin_boards = []
    for board in boards:
        made: dict[str, vugraph.Room] = {}
        for name, pk in rooms:
            state = play.BoardState.replay(
                board.deal,
                board.dealer,
                board.vulnerability,
                [action_of(row) for row in actions.get((pk, board.pk), [])],
            )
            made[name] = _room(name, board, state)
            claimed[board.number, name] = _claimed(results.get((pk, board.pk)), state)
        lin_boards.append(
            vugraph.Board(board.number, made.get(vugraph.OPEN), made.get(vugraph.CLOSED))
        )
    entries = [
        claimed.get((number, name))
        for number in range(first, last + 1)
        for name in (vugraph.OPEN, vugraph.CLOSED)
    ]
    while entries and entries[-1] is None:
        entries.pop()
    return vugraph.VugraphMatch(
        title=_text(title),
        segment=_field(segment),
        scoring="I",
        first_board=first,
        last_board=last,
        teams=(_field(teams[0]), _field(teams[1])),
        carry_over=carry_over,
        players=tuple(players),
        results=tuple(entries),
        boards=tuple(lin_boards),
    )


def _seats(table: Table, swapped: set[tuple[int, int]]) -> dict[str, str]:
    """seat -> the name of who sat there: player 1 North (East), player 2 South (West),
    unless the pair swapped at that table (`selectors.table_seats`)."""
    seats = {}
    for (first, second), pair in ((("N", "S"), table.ns_pair), (("E", "W"), table.ew_pair)):
        one, two = player_name(pair.player1), player_name(pair.player2)
        if (table.pk, pair.pk) in swapped:
            one, two = two, one
        seats[first], seats[second] = one, two
    return seats


def _room(name: str, board: Board, state: play.BoardState) -> vugraph.Room:
    calls = tuple(
        vugraph.LinCall(call.call, alerted=bool(call.alert), explanation=_alert(call.alert))
        for call in state.calls
    )
    tricks = (*state.tricks, *((state.current_trick,) if state.current_trick else ()))
    cards = tuple(card for trick in tricks for _seat, card in trick.plays)
    claim = None
    if state.accepted_claim is not None and state.contract is not None:
        claim = state.result().tricks  # the declaring side's tricks in the whole board
    hands = tuple(tuple(play.sort_hand(hand)) for hand in state.deal)
    return vugraph.Room(
        name=name,
        hands=hands,  # type: ignore[arg-type]  # four hands, as dealt
        dealer=board.dealer,
        vulnerability=board.vulnerability,
        calls=calls,
        cards=cards,
        claim=claim,
    )


def _claimed(result: BoardResult | None, state: play.BoardState) -> vugraph.ClaimedResult | None:
    """The room's `rs` entry: its stored result (a director's ruling included) when it is
    a played or passed-out result; nothing for an adjusted score or no result."""
    if result is None:
        return None
    if result.state == ResultState.PASSED_OUT:
        return vugraph.result_text(None, None, None)
    if result.state != ResultState.PLAYED or not result.contract or not result.declarer:
        return None
    try:
        contract = parse_contract(result.contract)
    except ValueError:
        return None
    if contract is None:
        return None
    return vugraph.result_text(contract, result.declarer, result.tricks)


def _text(value: str) -> str:
    """LIN has no way to write `|` in any text."""
    return value.replace("|", "/")


def _field(value: str) -> str:
    """A field of `vg`, `rs` or `pn`: no `|` and no comma (they separate the fields)."""
    return _text(value).replace(",", ";").strip()


def _alert(text: str | None) -> str | None:
    return _text(text) if text else None
