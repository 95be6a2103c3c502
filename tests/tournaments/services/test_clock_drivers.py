"""What drives the clock: the Celery task and its beat schedule, and `manage.py run_clock`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from io import StringIO
from urllib.parse import urlsplit, urlunsplit

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from config.celery import app
from tournaments import tasks
from tournaments.models import ClockHeartbeat, Round


def test_the_beat_schedule_ticks_often_and_drops_late_ticks():
    entry = settings.CELERY_BEAT_SCHEDULE["tournament-clock-tick"]
    assert entry["task"] == "tournaments.tasks.clock_tick" == tasks.clock_tick.name
    interval = entry["schedule"]
    assert 0 < interval <= 5
    # A tick not started before the next is due is dropped, never queued behind it.
    assert 0 < entry["options"]["expires"] < interval
    assert "eta" not in entry["options"] and "countdown" not in entry["options"]


def test_the_tick_task_is_acknowledged_late_and_keeps_no_result():
    assert tasks.clock_tick.acks_late is True
    assert tasks.clock_tick.ignore_result is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert "tournaments.tasks.clock_tick" in app.tasks


@pytest.mark.django_db
def test_the_tick_task_advances_the_clock(make_tournament, register_pairs, t0):
    tournament = make_tournament()
    register_pairs(tournament, 4)
    with time_machine.travel(t0, tick=False):
        events = tasks.clock_tick.apply().get()
    assert events == [f"{tournament.name}: started, round 1 seated (2 tables)"]
    beat = ClockHeartbeat.objects.get(name="clock")
    assert (beat.last_tick_at, beat.last_driver) == (t0, "celery")


# Real transactions: the command closes stale connections before every tick, which a
# test wrapped in a transaction would not survive.
@pytest.mark.django_db(transaction=True)
def test_run_clock_once(make_tournament, register_pairs, t0):
    tournament = make_tournament()
    register_pairs(tournament, 2)
    out, err = StringIO(), StringIO()
    with time_machine.travel(t0 + timedelta(seconds=1), tick=False):
        call_command("run_clock", "--once", stdout=out, stderr=err)
    assert err.getvalue() == ""
    text = out.getvalue()
    assert f"run_clock: {tournament.name}: started, round 1 seated (1 tables)" in text
    assert text.rstrip().endswith("run_clock: stopped")
    assert ClockHeartbeat.objects.get(name="clock").last_driver == "run_clock"


def worker_database_url() -> str:
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_run_clock_ticks_until_told_to_stop(signum, make_tournament, register_pairs):
    now = timezone.now()
    tournament = make_tournament(
        registration_opens_at=now - timedelta(hours=1), start_at=now - timedelta(seconds=1)
    )
    register_pairs(tournament, 4, now=now - timedelta(minutes=1))
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    process = subprocess.Popen(
        [sys.executable, "manage.py", "run_clock", "--interval", "0.2"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            beat = ClockHeartbeat.objects.filter(name="clock").first()
            if beat and beat.ticks >= 3:
                break
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.1)
        else:
            raise AssertionError("run_clock never ticked three times")
        process.send_signal(signum)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert f"signal {int(signum)}, stopping after this tick" in out
    assert out.rstrip().endswith("run_clock: stopped")
    assert "tick failed" not in err
    assert Round.objects.filter(tournament=tournament, number=1, status="open").exists()
    assert ClockHeartbeat.objects.get(name="clock").last_driver == "run_clock"
