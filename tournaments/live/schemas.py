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
    position: int
    rank: int | None
    total: float
    boards_completed: int
    completion: float = Field(description="Percentage of the event's boards completed, 0–100.")
    completed: bool
    master_points: float
    withdrawn: bool
