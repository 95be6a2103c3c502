"""Each format's parts of the shared pages (docs/ARCHITECTURE.md, "The format seam").

The tournament page, the results page, a table's page and the director's console serve
every format without asking which it is: they look the format's entry up in `PAGES`, by
`Tournament.format_key` (= `format_of(tournament).key`), and the templates include the
fragments it names (`format_pages` in their context; the heads every page shares read it
through the `formats` template library). A new format adds one entry here and its own
templates; no page grows an `if` on the kind of event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _

from .. import visibility
from ..models import ClubSystem, ClubTableStatus, FormatKey, Round, Table, Tournament
from ..selectors import club as club_reads
from ..selectors import console as console_selectors
from ..selectors import team_results
from ..services.formats import FORMATS, Format
from . import matches, teams
from .movement import MovementPanel, movement_panel, no_movement_panel


@dataclass(frozen=True)
class FormatPages:
    """What the shared pages show of one format. The `str` fields are templates the pages
    include; the callables give the context those templates read."""

    format: Format  # its plain data: `contestant`, `has_movement_page` (the heads' tab)

    # The tournament page and the heads of its pages.
    scoring: str  # how the event is scored, in the head's line of facts
    registration: str  # registering (before round 1), and the visitor's own entry after
    registered: str  # the contestants registered before round 1
    entry: str  # the context's name of the visitor's own contestant ("my_pair", "my_team")
    tournament_context: Callable[..., dict]  # (request, tournament, now=): what they read

    # The results page: the format's own view, or None for the field's standings and grid.
    results: Callable[[HttpRequest, Tournament], HttpResponse] | None

    # A table's page: where the table sits in the event (a match's room), or None.
    room_of: Callable[[Table], Any]
    # A table's page: the format's own part of the script's config (None), the seats its
    # robots hold, and the words it adds.
    table_extras: Callable[[Table], tuple[dict | None, set[str], dict[str, str]]]

    # The director's console.
    console_facts: str  # the kind of event, in the console's title line
    console_event: str  # the seating panel (a movement's, or the team event's)
    console_contestants: str  # the contestants' list, searchable
    contestants_context: Callable[..., dict]  # (request, tournament, query=, page=)
    round_matches: Callable[[Round | None], list]  # a round's matches on the progress panel
    progress_grid: str  # the progress grid's extra class
    movement_panel: Callable[[Tournament], MovementPanel]
    start_summary: str  # what starting the event will do (the confirmation page)
    start_context: Callable[[Tournament], dict]
    seating_page: str  # the seating page's panel
    seating_changes: bool  # the seating page changes the seating (until round 1)


def _nothing(*args, **kwargs) -> dict:
    return {}


def _no_room(table: Table) -> None:
    return None


def _no_extras(table: Table) -> tuple[dict | None, set[str], dict[str, str]]:
    return None, set(), {}


def _club_table(table: Table) -> tuple[dict | None, set[str], dict[str, str]]:
    """A club table (RULES 13) has no list of boards: the next is dealt when a result is
    stored, so "Next board" reloads the page; no round clock; the lobby to go back to."""
    club_table = club_reads.club_table_of(table)
    if club_table is None:
        return _no_extras(table)
    config = {
        "lobbyUrl": reverse("club_lobby"),
        "boardsUrl": reverse("club_my_boards"),
        "closed": club_table.status == ClubTableStatus.CLOSED,
        "system": str(ClubSystem(club_table.field.system).label),
    }
    words = {
        "to_lobby": _("Back to the lobby"),
        "my_boards": _("My boards: the field's results"),
        "club_closed": _("This club table has closed."),
    }
    return config, club_reads.robot_seats(club_table), words


def _no_matches(round: Round | None) -> list:
    return []


def _pairs(request: HttpRequest, tournament: Tournament, *, query: str, page: Any) -> dict:
    return {"pairs": console_selectors.pairs_page(tournament=tournament, query=query, page=page)}


def _teams(request: HttpRequest, tournament: Tournament, *, query: str, page: Any) -> dict:
    return {
        "teams": console_selectors.teams_page(tournament=tournament, query=query, page=page),
        # An organiser sees every team's standing line-up (no team's member is asked).
        "sees_line_ups": visibility.may_see_line_up(request.user, None, member_ids=()),
    }


def _swiss_start(tournament: Tournament) -> dict:
    return {"start": console_selectors.start_summary(tournament=tournament)}


def _movement_start(tournament: Tournament) -> dict:
    # A movement seats round 1 at its own tables, not the Swiss pairs / 2 (RULES 10).
    return {**_swiss_start(tournament), "start_movement": movement_panel(tournament)}


def _team_start(tournament: Tournament) -> dict:
    return {"team_start": console_selectors.team_start_summary(tournament=tournament)}


def _team_room(table: Table) -> Any:
    return team_results.room_of(table=table)


def _round_matches(round: Round | None) -> list:
    return console_selectors.match_progress(round=round)


SWISS_PAIRS_PAGES = FormatPages(
    format=FORMATS[FormatKey.SWISS_PAIRS],
    scoring="tournaments/_scoring.html",
    registration="tournaments/_registration.html",
    registered="tournaments/_registered_pairs.html",
    entry="my_pair",
    tournament_context=_nothing,
    results=None,
    room_of=_no_room,
    table_extras=_no_extras,
    console_facts="console/_facts.html",
    console_event="console/_swiss.html",
    console_contestants="console/_pairs.html",
    contestants_context=_pairs,
    round_matches=_no_matches,
    progress_grid="",
    movement_panel=no_movement_panel,
    start_summary="console/_start.html",
    start_context=_swiss_start,
    seating_page="console/_seating_form.html",
    seating_changes=True,
)

# A movement's pairs event: the Swiss pairs' pages, with its movement.
MOVEMENT_PAIRS_PAGES = replace(
    SWISS_PAIRS_PAGES,
    format=FORMATS[FormatKey.MOVEMENT_PAIRS],
    console_event="console/_movement.html",
    movement_panel=movement_panel,
    start_context=_movement_start,
)

TEAM_MATCHES_PAGES = FormatPages(
    format=FORMATS[FormatKey.TEAM_MATCHES],
    scoring="tournaments/_team_scoring.html",
    registration="tournaments/_team_registration.html",
    registered="tournaments/_registered_teams.html",
    entry="my_team",
    tournament_context=teams.team_context,
    results=matches.team_results,
    room_of=_team_room,
    table_extras=_no_extras,
    console_facts="console/_team_facts.html",
    console_event="console/_team_event.html",
    console_contestants="console/_teams.html",
    contestants_context=_teams,
    round_matches=_round_matches,
    progress_grid="team-grid",
    # Teams are seated by their schedule (Swiss teams or a round robin), no movement.
    movement_panel=no_movement_panel,
    start_summary="console/_team_start.html",
    start_context=_team_start,
    seating_page="console/_team_seating.html",
    seating_changes=False,
)

# The formats' pages by key (`Tournament.format_key`): one entry a format.
PAGES: dict[FormatKey, FormatPages] = {
    FormatKey.SWISS_PAIRS: SWISS_PAIRS_PAGES,
    FormatKey.MOVEMENT_PAIRS: MOVEMENT_PAIRS_PAGES,
    FormatKey.TEAM_MATCHES: TEAM_MATCHES_PAGES,
    # The club's week (RULES 13): its tables' pages are the pairs' (its lobby, standings
    # and boards are the club's own pages, `views.club`).
    FormatKey.CLUB: replace(
        SWISS_PAIRS_PAGES, format=FORMATS[FormatKey.CLUB], table_extras=_club_table
    ),
}


def pages_of(tournament: Tournament) -> FormatPages:
    """The parts of the pages `tournament`'s format shows."""
    return PAGES[tournament.format_key]
