"""Request and response bodies. Types are checked here (422); meaning — ranges, names,
bridge rules — is checked by the services, whose messages the API passes on (400)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from ninja import Field, Schema
from pydantic import AfterValidator

from ..live.schemas import PlayerOut


def _no_nul(value: str) -> str:
    # PostgreSQL text cannot hold NUL; refused here, it is a 422 instead of a 500.
    if "\x00" in value:
        raise ValueError("text may not contain NUL characters")
    return value


Text = Annotated[str, AfterValidator(_no_nul)]


class ErrorOut(Schema):
    error: str


# --- players -------------------------------------------------------------------------


class PlayerIn(Schema):
    username: Text = Field(description="Letters, digits and @ . + - _ ; at most 150 characters.")
    display_name: Text = Field("", description="Name shown on the pages; at most 80 characters.")


class PlayerCreatedOut(Schema):
    id: int
    username: str
    display_name: str


# --- tournaments ---------------------------------------------------------------------


class TournamentIn(Schema):
    name: Text
    start_at: datetime = Field(description="ISO 8601; without an offset, the site's time zone.")
    registration_opens_at: datetime | None = Field(None, description="Default: now.")
    rounds: int = Field(description="1–50.")
    boards_per_round: int = Field(description="1–36.")
    round_minutes: float = Field(description="1–600; fractions allowed.")
    gap_minutes: float = Field(0, description="Between rounds: 0–1440; fractions allowed.")
    scoring: Literal["MP", "IMP", "XIMP"] = "IMP"
    completion_threshold: float = Field(
        70, description="A percentage 1–100 (70 means 70 %); fractions such as 0.7 are refused."
    )
    unplayed_policy: Literal["not_played", "avg_minus", "avg"] = "not_played"
    play: Literal["online", "entered"] = Field(
        "entered",
        description="Played online at the system's tables, or elsewhere with "
        "results entered (today's behaviour).",
    )
    seating: Literal["swiss", "mitchell", "howell", "movement", "round_robin"] = Field(
        "swiss",
        description="Swiss (by score, no rematch), or a movement fixed at round 1: a "
        "Mitchell or a Howell generated for the pairs registered then, or `movement` "
        "given as data (RULES 10). A team event: `swiss` (Swiss teams on VP totals) or "
        "`round_robin` (every team meets every other once, RULES 11).",
    )
    winners: int | None = Field(
        None,
        description="1, or 2: the NS and the EW pairs ranked as two fields (a Mitchell, "
        "or a given movement whose pairs keep their direction). Not given: 2 for a "
        "Mitchell, else 1.",
    )
    arrow_switch: bool = Field(
        False,
        description="A Mitchell whose tables swap NS and EW in some rounds, for one winner: "
        "only with `boards_travel` (with duplicated boards it would never compare NS pairs "
        "with EW pairs, RULES 10).",
    )
    boards_travel: bool = Field(
        False,
        description="Face to face (`play` entered) with a movement: each table plays the "
        "board set the movement gives it, and a board is scored when its last table has "
        "played it. Off: every table of a round plays the round's boards.",
    )
    datum_rounding: Literal["half_even", "half_away"] = Field(
        "half_even",
        description="IMPs against a datum: a datum ending in exactly 5 goes to the even ten "
        "(`half_even`, 425 → 420) or away from zero (`half_away`, 425 → 430, as Compscore3).",
    )
    movement: dict | str | None = Field(
        None,
        description="With seating `movement`: the movement as JSON (the form GET "
        "/tournaments/{id}/movement returns) or the text of an .ASC movement file. It must "
        "pass every check of RULES 10 and have the tournament's rounds and boards per round.",
    )
    neuberg: bool | None = Field(
        None, description="Neuberg for boards with artificial scores; default on for a movement."
    )
    contestants: Literal["pairs", "teams"] = Field(
        "pairs",
        description="Pairs, or teams of four to six playing matches in two rooms (RULES 11): "
        "fixed at creation. A team event has one winner, no movement and no travelling "
        "board sets.",
    )
    team_scoring: Literal["vp", "imps"] = Field(
        "vp",
        description="A team event: each match's IMP margin in victory points (the WBF 2013 "
        "continuous 20-VP scale, at most 64 boards a match), or IMPs only (a knock-out).",
    )
    bye_vp: Decimal = Field(
        Decimal("12.00"),
        description="A team event: what a bye scores, 0–20 VPs to two decimals.",
    )
    stanzas: int = Field(
        1,
        description="A team event: the rounds each match lasts (1–8), the line-up set again "
        "before each stanza and the VPs converted once on the whole match; the rounds a "
        "whole number of matches.",
    )


class RoundSummaryOut(Schema):
    number: int
    status: str
    starts_at: datetime
    ends_at: datetime


class TournamentOut(Schema):
    id: int
    name: str
    status: str
    start_at: datetime
    registration_opens_at: datetime
    rounds: int
    boards_per_round: int
    round_minutes: float
    gap_minutes: float
    scoring: str
    completion_threshold: float = Field(description="Percentage 1–100.")
    unplayed_policy: str
    play: str = Field(description='"online" or "entered".')
    seating: str = Field(description='"swiss", "mitchell", "howell" or "movement".')
    winners: int = Field(description="1, or 2 (NS and EW ranked as two fields).")
    arrow_switch: bool
    boards_travel: bool
    datum_rounding: str
    neuberg: bool
    contestants: str = Field(description='"pairs" or "teams" (RULES 11).')
    team_scoring: str = Field(
        description='"vp" or "imps": how a team match counts ("vp" for a pairs event).'
    )
    bye_vp: float = Field(description="What a team's bye scores, in VPs.")
    stanzas: int = Field(description="A team event: the rounds each match lasts.")
    pair_count: int
    current_round: RoundSummaryOut | None
    finished_at: datetime | None


class StartedOut(Schema):
    tournament: TournamentOut
    events: list[str]


class ClosedOut(Schema):
    message: str
    tournament: TournamentOut


# --- pairs ---------------------------------------------------------------------------


class PairIn(Schema):
    players: list[Text] = Field(description="The two players' usernames.")


class PairOut(Schema):
    id: int
    registration_no: int | None
    players: list[PlayerOut]
    withdrawn_at: datetime | None


# --- rounds and results --------------------------------------------------------------


class BoardOut(Schema):
    number: int
    dealer: str
    vulnerability: str


class TableOut(Schema):
    table: int
    boards: list[int] = Field(
        description="The boards this table plays: the round's, or its own set when board "
        "sets travel (face to face, as the movement says)."
    )
    ns: int = Field(description="NS pair id.")
    ew: int = Field(description="EW pair id.")
    ns_players: list[PlayerOut]
    ew_players: list[PlayerOut]


class RoundOut(Schema):
    number: int
    status: str
    starts_at: datetime
    ends_at: datetime
    closed_at: datetime | None
    boards: list[BoardOut] = Field(
        description="Every board played in the round (at every table, or in the tables' "
        "sets when board sets travel)."
    )
    tables: list[TableOut]
    bye: int | None = Field(description="Pair id of the pair sitting out, if any.")


class ResultIn(Schema):
    contract: Text = Field(description='"4S", "3NTX", "7HXX" or "PASS".')
    declarer: Text | None = Field(None, description="N, E, S or W (not for PASS).")
    tricks: int | None = Field(None, description="Tricks taken by declarer, 0–13 …")
    result: Text | None = Field(None, description='… or the result: "=", "+1", "-2".')
    lead: Text | None = Field(None, description='Opening lead, e.g. "SA", "H10" (optional).')


class AdjustmentIn(Schema):
    ns: Text = Field(description='The NS side\'s adjusted score: "A+", "A" or "A-".')
    ew: Text = Field(description='The EW side\'s: "A+", "A" or "A-".')
    reason: Text = Field(description="Why (kept with the result and its history).")


class ResultOut(Schema):
    table: int
    board: int
    state: str
    ns_adjustment: str = Field("", description='An adjusted score\'s NS code ("A+", "A", "A-").')
    ew_adjustment: str = Field("", description="… and its EW code.")
    contract: str
    declarer: str
    tricks: int | None
    result: str
    lead: str
    ns_score: int | None
    entered_by: str | None
    entered_at: datetime


# --- standings and boards ------------------------------------------------------------

# StandingOut (and PlayerOut) live with the standings JSON the pages' cache builds:
# tournaments/live/schemas.py.


class BoardResultOut(Schema):
    round: int = Field(description="The round the table played the board in.")
    table: int
    ns: int
    ew: int
    contract: str
    declarer: str
    tricks: int | None
    result: str
    lead: str
    ns_score: int | None
    ns_points: float | None
    ew_points: float | None
    state: str
    ns_adjustment: str
    ew_adjustment: str


class BoardDetailOut(Schema):
    number: int
    round: int | None = Field(
        description="The round whose close completes the board (its last table's, when "
        "board sets travel); null while that round is not seated yet."
    )
    dealer: str
    vulnerability: str
    deal: str | None = Field(description="PBN deal; null until the board's round has closed.")
    datum: int | None
    results: list[BoardResultOut] = Field(
        description="The traveller; empty until the round has closed (it would show "
        "contracts to tables still to play the board)."
    )


# --- movements -----------------------------------------------------------------------


class MovementPositionOut(Schema):
    position: int
    label: str = Field(description='As club scorers print it: "3NS" / "3EW", or "3".')
    pair: int | None = Field(description="Pair id holding it; null for the phantom.")
    field: str = Field(description='"NS" / "EW" in a two-winner event, else "".')


class MovementOut(Schema):
    seating: str
    winners: int
    fixed: bool = Field(
        description="True from round 1's start (the stored movement); before it, the "
        "movement as it stands for the pairs registered so far."
    )
    movement: dict = Field(description="The movement as data (the JSON form).")
    positions: list[MovementPositionOut]


class MovementIn(Schema):
    seating: Literal["swiss", "mitchell", "howell", "movement"]
    winners: int | None = None
    arrow_switch: bool = False
    movement: dict | str | None = Field(
        None, description="With seating `movement`: JSON or the text of an .ASC file."
    )
    neuberg: bool | None = None
    boards_travel: bool | None = Field(
        None, description="Board sets travel (face to face); not given: as it is."
    )
