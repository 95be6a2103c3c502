"""How this server process's sockets answered a round's bell (`BoardConsumer.round_closed`).

A socket answers from the bell's message and the board its process keeps
(`replays.kept_state`), or that board brought up to date with the last actions the bell
carries (`replays.caught_up`: the process had not heard their events yet); one that can
do neither reads the board (`current_view`, through the table server's small pool),
which is what makes a bell slow. Each process counts its answers per round and logs them once,
`REPORT_AFTER_SECONDS` after its first answer: the figure to look at when a bell is
slow (and what `bench/bench_play.py` reads from each server's log).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)

# Long enough for every socket of a process to have answered a bell of thousands.
REPORT_AFTER_SECONDS = 15.0


@dataclass
class Answers:
    kept: int = 0  # from the board kept here
    carried: int = 0  # that board behind, brought up to date from the bell's last rows
    read: int = 0  # the board read again


_rounds: dict[int, Answers] = {}


def count(round_id: int, how: str) -> None:
    """One socket answered round `round_id`'s bell: `how` is "kept", "carried" or "read"."""
    answers = _rounds.get(round_id)
    if answers is None:
        answers = _rounds[round_id] = Answers()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            loop.call_later(REPORT_AFTER_SECONDS, report, round_id)
    setattr(answers, how, getattr(answers, how) + 1)


def report(round_id: int) -> Answers | None:
    """Log round `round_id`'s answers here and forget them."""
    answers = _rounds.pop(round_id, None)
    if answers is not None:
        logger.info(
            "bell of round %s: %s sockets answered in this process, %s from the kept board,"
            " %s from the rows the bell carried, %s read the board",
            round_id,
            answers.kept + answers.carried + answers.read,
            answers.kept,
            answers.carried,
            answers.read,
        )
    return answers
