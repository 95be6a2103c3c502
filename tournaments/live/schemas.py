"""The shape of the standings the API serves, here because the JSON is built and cached
with the live pages' values (`cached.standings_json`); the API declares the same classes
as its response schema, so the documentation and the cached bytes cannot drift apart."""

from __future__ import annotations

from ninja import Field, Schema


class PlayerOut(Schema):
    username: str
    name: str


class StandingOut(Schema):
    pair: int
    registration_no: int | None
    players: list[PlayerOut]
    position: int = Field(
        description="Place in the standings, within the pair's field when the event has "
        "two winners."
    )
    rank: int | None = Field(
        description="Final rank among the pairs that completed (within the pair's field "
        "when the event has two winners); null before the end and for a pair that did "
        "not complete."
    )
    total: float
    boards_completed: int
    completion: float = Field(description="Percentage of the event's boards completed, 0–100.")
    completed: bool
    master_points: float
    withdrawn: bool
    field: str = Field(
        "",
        description='The field the pair is ranked in: "NS" or "EW" in a two-winner event '
        "(a Mitchell: the NS pairs listed first, then the EW pairs, each ranked apart); "
        '"" when the event has one winner.',
    )
    label: str = Field(
        "",
        description="The pair's number as the pages print it: in an event seated by a "
        'movement the position it holds as the movement labels it ("3NS" / "3EW" in a '
        'Mitchell, "3" in a Howell), else its registration number.',
    )
