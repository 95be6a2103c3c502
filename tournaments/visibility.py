"""Who may see which hand and which result, and when: the one rule (RULES 2 and 9,
docs/SECURITY.md). Every renderer of a hand or a result asks here — the socket's views,
the HTTP board view, the table page, the console, the board page, the API and the
exports — so no page can keep a rule of its own.

The rule:

- **Once a board's round has closed** (`Board.round`: the round whose bell completes
  it; a travelling board set's is the last round a table plays it) its deal and every
  result of it are everyone's: hand records, travellers, the auction and play, the
  exports.
- **Before that** the deal and the results are seen only by
  - the players seated at a table, for that table's board: their own hand, dummy after
    the opening lead, all four hands once the board is over at their table
    (`play.BoardState.visible_seats`), and their table's result once it is entered;
  - a tournament director holding `tournaments.direct_results` (the organiser who
    rules on the board: the console, watching a table live). A staff account without
    that permission is nobody here: it sees what the public sees. Not at the club
    (RULES 13): its boards are library deals that the next tables are still given, free
    play has no director, and a director may sit down at the club too, so a club board
    is a director's only as it is anyone's (seated at its table, or the week closed).
  - while a claim waits for its answers, the claimer's hand is also shown to the three
    others at the table (Law 68: the claimer faces his cards), and hidden again if the
    claim is rejected (`play.BoardState.visible_seats` again).
- Nobody else: not another table's players, not a staff account, not an anonymous
  visitor.
- **Kibitzers**: anyone (anonymous too) may watch a table of a running round when they
  ask to (the kibitzer's socket), and sees no hand, call, card or result of it until the
  round closes: only how far the board has come (`PROGRESS_ONLY`). When the organiser
  chooses `Tournament.kibitz_live` ("as Vugraph does"), a kibitzer sees every hand
  live — except a player of the tournament, who never kibitzes live (the other tables
  of the round play his boards): he stays at the progress only.

The public pages are built once per live version for everyone (`live/cached`), so they
ask only `deal_public` / `results_public`: a director's extra sight is given by the
console and the live table, never mixed into a shared page.

**Broadcasts** (RULES 12, Vugraph): a broadcast shows a match's two rooms (or one
online table) to spectators, anonymous ones too. A player of the event sees nothing of
it while the event runs (`may_watch_broadcast`). For everyone else a board is released
in every room of the broadcast — its hands, auction, play and result — only once every
table that plays it has finished it, plus the broadcast's delay (`board_release_at`):
"both rooms" of the seed, widened to every table because the other matches of a round
play the same boards, so nothing shown can reach a table that still has the board to
play. Before that a spectator sees how far each room has come (`PROGRESS_ONLY`), and
the match's score counts only released boards. Once the round has closed everything is
released at once, as everywhere.

A pair's seats at a table are fixed from the moment either of its players is first sent
a hand of the round there (`services.table_play.board_view`), so a seat swap can never show
a player their partner's cards.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime, timedelta

from django.db.models import Q

from .models import Board, Round, RoundStatus, Table, TeamMember
from .permissions import CHANGE_TOURNAMENT, DIRECT_RESULTS, MANAGE_PLAYERS

# `deal_public` as filters, for the reads that list many boards or results.
DEAL_PUBLIC = Q(round__status=RoundStatus.CLOSED)
RESULT_PUBLIC = Q(board__round__status=RoundStatus.CLOSED)
# … and what a director sees besides (`directs`): every board but the club's.
DIRECTED_DEALS = DEAL_PUBLIC | Q(club_deal__isnull=True)
DIRECTED_RESULTS = RESULT_PUBLIC | Q(board__club_deal__isnull=True)

# The viewer codes of `selectors.board_views.board_json`: every hand; and a kibitzer's
# sight of a running round, the progress of the board and nothing of its cards.
EVERY_HAND = "*"
PROGRESS_ONLY = "kibitzer"


def deal_public(round: Round | None) -> bool:
    """Whether the boards of `round` — their deals and all their results — are everyone's:
    once the round has closed, never before. `round` is a board's own (`Board.round`, the
    round whose bell completes it: for a travelling board set the last round a table
    plays it, not the round one table played it in); None, a travelling board whose last
    round is not seated yet: not public."""
    return round is not None and deal_public_status(round.status)


def deal_public_status(status: str) -> bool:
    """`deal_public` for a round known by its status alone (the socket server's reads)."""
    return status == RoundStatus.CLOSED


def results_public(round: Round | None) -> bool:
    """The results of a round's boards are public exactly when its deals are."""
    return deal_public(round)


def watches_live(user) -> bool:
    """Whether `user` may see every hand and result of a running round: an active
    tournament director holding `tournaments.direct_results`. Staff alone is nothing."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_active and user.has_perm(DIRECT_RESULTS))


def directs(user, *, library: bool) -> bool:
    """A director's sight of a running round's boards (`watches_live`), which the club's
    library deals never give (`library`: the board is one, RULES 13; the format's
    `library_deals`)."""
    return not library and watches_live(user)


def may_see_deal(user, board: Board, round: Round | None = None) -> bool:
    """Every hand of `board` at once (a hand record, a diagram): public after the round,
    for a director at any time (not a club board's). A seated player's partial sight is
    `table_viewer`'s."""
    # `round` saves a query only when it is the board's own: the round a travelling board
    # was played in at one table says nothing of the tables still to play it.
    own = round if round is not None and round.pk == board.round_id else board.round
    return deal_public(own) or directs(user, library=board.club_deal_id is not None)


def may_see_result(user, *, round: Round | None, table: Table, library: bool = False) -> bool:
    """A table's result of a board whose round (`Board.round`) is `round`: public after
    that round; before, for a director (not of a club library deal: `library`) and for
    the players at that table (they entered or played it)."""
    if results_public(round) or directs(user, library=library):
        return True
    user_id = getattr(user, "pk", None)
    return user_id is not None and table.side_of(user_id) is not None


def table_viewer(
    *,
    user,
    round: Round | str,
    seat: str | None,
    kibitz: bool = False,
    kibitz_live: bool = False,
    plays_in_tournament: bool = False,
    library: bool = False,
) -> str | None:
    """Who `user` is at a table's board, as `selectors.board_views.board_json` takes it: their
    `seat` ("N", "E", "S", "W": the hands `play` lets that seat see), `EVERY_HAND` (the
    round has closed, or a director), or None: they may see nothing of it now.

    `kibitz`: the user asks to watch as a kibitzer (anyone may): then, rather than
    nothing, `PROGRESS_ONLY`; or `EVERY_HAND` when the tournament lets kibitzers watch
    live (`kibitz_live`) and the user is not one of its players (`plays_in_tournament`).

    `library`: the table plays the club's library deals (RULES 13), where a director
    sees what anyone sees.

    `round` may be given as its status alone (the socket server reads only that)."""
    status = round if isinstance(round, str) else round.status
    if deal_public_status(status):
        return EVERY_HAND
    if seat is not None:
        return seat
    if directs(user, library=library):
        return EVERY_HAND
    if kibitz:
        # A library deal is never kibitzed live, whatever the event's setting says.
        live = kibitz_live and not plays_in_tournament and not library
        return EVERY_HAND if live else PROGRESS_ONLY
    return None


def kibitzes_live(
    viewer: str | None, *, seat: str | None, user, round_status: str, library: bool = False
) -> bool:
    """Whether `viewer` (from `table_viewer`) is a kibitzer seeing the hands live: every
    hand of a running round, neither seated nor a director."""
    return (
        viewer == EVERY_HAND
        and seat is None
        and not deal_public_status(round_status)
        and not directs(user, library=library)
    )


def may_see_line_up(user, team, member_ids: Collection[int] | None = None) -> bool:
    """Whether `user` may see `team`'s standing line-up (its pairs for the next match,
    RULES 11): its confirmed members and the organisers (an active staff account holding
    one of the organiser's powers over players or the event). The opponents learn it when
    the round is seated: the tables show it, not this. `member_ids`: the team's confirmed
    members' ids when the caller has read them already (a list of teams)."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if member_ids is None:
        member_ids = set(
            TeamMember.objects.filter(team_id=team.pk, confirmed_at__isnull=False).values_list(
                "user_id", flat=True
            )
        )
    if user.pk in member_ids:
        return True
    return bool(user.is_staff) and any(
        user.has_perm(p) for p in (MANAGE_PLAYERS, CHANGE_TOURNAMENT, DIRECT_RESULTS)
    )


# What `board_release_at` answers for a board whose round has closed: released long ago.
RELEASED_AT_THE_BELL = datetime(2000, 1, 1, tzinfo=UTC)


def may_watch_broadcast(*, plays_in_event: bool, event_over: bool) -> bool:
    """Whether a viewer may watch a broadcast of an event (RULES 12): anyone (anonymous
    too), except a player of the event while it runs."""
    return event_over or not plays_in_event


def board_release_at(
    *,
    round_status: str,
    tables: int,
    finished: int,
    last: datetime | None,
    delay: timedelta,
) -> datetime | None:
    """When a broadcast shows a board (every room's hands, auction, play and result): at
    once when its round has closed (`RELEASED_AT_THE_BELL`); else, once all `tables` that
    play it have finished it (`finished` of them have a result, the `last` stored then),
    that last finish plus the broadcast's `delay`; None while a table still has it to
    play."""
    if deal_public_status(round_status):
        return RELEASED_AT_THE_BELL
    if tables <= 0 or finished < tables or last is None:
        return None
    return last + delay


def released(release_at: datetime | None, now: datetime) -> bool:
    """Whether a board with that release time (`board_release_at`) is shown at `now`."""
    return release_at is not None and release_at <= now


def may_see_club_field(user, *, given_the_deal: bool, week_closed: bool) -> bool:
    """A club library deal's results across the field (RULES 13): to whoever was given
    the deal (their table played it), and to everyone once the week has closed and the
    library is gone; never to anyone else while the deal is in the library, a director
    included (a director may sit down at the club too)."""
    return week_closed or given_the_deal


# The club's deals as a filter for one viewer: `may_see_club_field` for many deals.
def club_field_visible(user_id: int | None) -> Q:
    closed = Q(field__week__closed_at__isnull=False)
    if user_id is None:
        return closed
    return closed | Q(seen__user_id=user_id)
