"""`config.asgi` with the club's board-ending actions timed inside the server process
(bench/bench_club.py): every `table_play.act` call that stored a club result
(`club_scoring.board_finished` ran in it) appends its duration in ms, one a line, to
$CLUB_ACT_TIMES (a file per process: `<path>.<pid>`). The bench's own wrapper: nothing
of the site changes."""

from __future__ import annotations

import os
import threading
import time

from config.asgi import application  # noqa: F401  (Django set up; served as is)
from tournaments.services import club_scoring, table_play

_flag = threading.local()
_out = open(f"{os.environ['CLUB_ACT_TIMES']}.{os.getpid()}", "a", buffering=1)  # noqa: SIM115
_lock = threading.Lock()
_real_act, _real_finished = table_play.act, club_scoring.board_finished


def _finished(**kwargs):
    _flag.ended = True
    return _real_finished(**kwargs)


def _act(**kwargs):
    _flag.ended = False
    began = time.perf_counter()
    try:
        return _real_act(**kwargs)
    finally:
        if getattr(_flag, "ended", False):
            ms = 1000 * (time.perf_counter() - began)
            with _lock:
                _out.write(f"{ms:.3f}\n")


club_scoring.board_finished = _finished
table_play.act = _act
