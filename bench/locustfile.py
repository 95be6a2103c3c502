"""Locust users for the result-entry burst (bench/bench_load.py writes their plan).

- TableUser, one per table: the table's device enters its boards through the JSON API
  (`PUT …/rounds/{n}/tables/{t}/boards/{b}` with the seated player's bearer token) at
  random moments of the window, in board order; a few tables then correct a board.
  Every 2xx answer is logged, so the database can be checked afterwards: each accepted
  result stored exactly once, with the last accepted values.
- StandingsReader: a spectator with the tournament page open, arriving in the first
  LOAD_READER_ARRIVAL seconds (default 20). The page polls the live fragment every 3 s
  with the version it shows (204 while nothing changed); one reader in four is a
  scoreboard app reading the API's full standings every 15 s instead.

Environment: LOAD_PLAN (the plan JSON), LOAD_ACCEPTED (where to write the log of sent and
accepted entries), LOAD_WINDOW (seconds over which the tables' entries are spread,
default 50), LOAD_START (seconds from the start of the run to the window, long enough for
locust to spawn every user; default 0).

The users are FastHttpUsers (geventhttpclient): locust runs on the same two cores as the
server, and the `requests`-based client costs it about three times the CPU per request.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
from urllib.parse import urlencode

import gevent
from locust import FastHttpUser, between, constant, events, task

with open(os.environ["LOAD_PLAN"], encoding="utf-8") as _plan:
    PLAN = json.load(_plan)
WINDOW = float(os.environ.get("LOAD_WINDOW", "50"))
START = float(os.environ.get("LOAD_START", "0"))
ARRIVAL = float(os.environ.get("LOAD_READER_ARRIVAL", "20"))
TOURNAMENT = PLAN["tournament"]
ROUND = PLAN["round"]
TABLES = PLAN["tables"]
_next_table = itertools.count()
_next_reader = itertools.count()
_accepted: list[dict] = []
_sent: list[dict] = []
_started: list[float] = []
_VERSION = re.compile(r'data-version="([^"]*)"')


@events.test_start.add_listener
def _on_test_start(environment, **kwargs):
    _started.append(time.monotonic())


def _write_accepted(**kwargs):
    # Sent as well as accepted: a request still in flight when the run stops may be
    # stored without its answer ever reaching locust; that is not a lost or extra row.
    path = os.environ.get("LOAD_ACCEPTED")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"accepted": _accepted, "sent": _sent}, f)


events.test_stop.add_listener(_write_accepted)
events.quitting.add_listener(_write_accepted)


class TableUser(FastHttpUser):
    fixed_count = len(TABLES)
    wait_time = constant(0)

    def on_start(self):
        index = next(_next_table)
        self.table = TABLES[index % len(TABLES)] if index < len(TABLES) else None
        if self.table is None:
            return
        # The window opens once every device is connected (locust spawns users over a few
        # seconds): a table spawned late must not fire its "earlier" boards all at once.
        t0 = (_started[0] if _started else time.monotonic()) + START
        rng = random.Random(index)
        moments = sorted(rng.uniform(0, WINDOW) for _ in self.table["results"])
        self.schedule = [
            (t0 + moment, result)
            for moment, result in zip(moments, self.table["results"], strict=True)
        ]
        # A few tables notice a mistake and correct a board a little later.
        if rng.random() < 0.05:
            fixed = dict(rng.choice(self.table["results"]))
            if fixed.get("tricks") is not None:
                fixed["tricks"] = max(0, min(13, fixed["tricks"] + rng.choice((-1, 1))))
                when = min(t0 + WINDOW + 2, self.schedule[-1][0] + rng.uniform(1, 5))
                self.schedule.append((when, fixed))
        self.headers = {"Authorization": f"Bearer {self.table['token']}"}

    @task
    def enter_results(self):
        if self.table is None or not self.schedule:
            gevent.sleep(3600)  # this table has nothing left to enter
            return
        when, result = self.schedule.pop(0)
        gevent.sleep(max(0.0, when - time.monotonic()))
        board = result["board"]
        body = {k: result[k] for k in ("contract", "declarer", "tricks", "lead") if k in result}
        _sent.append({"table": self.table["number"], "board": board, **body})
        with self.client.put(
            f"/api/v1/tournaments/{TOURNAMENT}/rounds/{ROUND}/tables/"
            f"{self.table['number']}/boards/{board}",
            json=body,
            headers=self.headers,
            name="PUT result",
            catch_response=True,
        ) as response:
            if response.status_code == 200:
                _accepted.append({"table": self.table["number"], "board": board, **body})
                response.success()
            else:
                response.failure(f"{response.status_code}: {response.text[:200]}")


class StandingsReader(FastHttpUser):
    fixed_count = PLAN.get("readers", 200)
    wait_time = between(2.5, 3.5)

    def on_start(self):
        self.api = next(_next_reader) % 4 == 0
        self.version = None
        if self.api:
            self.wait_time = lambda: random.uniform(12, 18)
        gevent.sleep(random.uniform(0, ARRIVAL))  # spectators arrive over a while

    @task
    def read(self):
        if self.api:
            self.client.get(f"/api/v1/tournaments/{TOURNAMENT}/standings", name="GET API standings")
            return
        url = f"/t/{TOURNAMENT}/standings/"
        if self.version is None:
            response = self.client.get(url, name="GET standings fragment (full)")
        else:
            response = self.client.get(
                f"{url}?{urlencode({'v': self.version})}", name="GET standings fragment (poll)"
            )
        if response.status_code == 200:
            found = _VERSION.search(response.text)
            self.version = found.group(1) if found else None
