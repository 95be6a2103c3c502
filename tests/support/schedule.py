"""The order in which scripts/test.sh's pytest-xdist workers take the test files.

A file goes to one worker whole (`--dist loadfile`: a module's browser and servers start
once), and a worker that finishes one takes the next file in the collection's order.
Left to itself, xdist sorts the files by their number of tests, so that a file of a few
long tests (a browser walking a whole event, a subprocess migrating SQLite) started in
the run's last minutes and ran on alone while the other workers stood idle. So the
workers' collection is ordered by how long each file took, longest first (the classic
longest-processing-time rule: the short files fill the gaps at the end), and test.sh
passes `--no-loadscope-reorder` so that xdist keeps that order. The order of the tests
inside a file is never changed, and a serial run keeps the plain collection order.

SECONDS are whole-file times in seconds (one parallel run of the whole suite, 4 workers
on 2 cores); only their order matters. A file not listed is
estimated from its number of tests (browser tests count more), and goes before the short
ones. Refresh the table when the slowest files change (`make test` prints the slowest
tests): after a run with `--junitxml=report.xml`, `python tests/support/schedule.py
report.xml` prints a new one.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

# A file not in SECONDS (a new one): its tests' estimated seconds, from the files that are,
# and at least UNLISTED_AT_LEAST, so that it runs before the files known to be short (a new
# file of one long test must not be the one left running at the end).
SECONDS_PER_UNLISTED_TEST = 0.3
SECONDS_PER_UNLISTED_BROWSER_TEST = 9.0  # marked `browser`: a Chromium page and a server
UNLISTED_AT_LEAST = 10.0

SECONDS: dict[str, float] = {
    "tests/tournaments/robots/test_online_demo.py": 153,
    "tests/tournaments/online/test_kibitz_page_browser.py": 152,
    "tests/tournaments/online/test_table_phone.py": 144,
    "tests/tournaments/views/test_browser.py": 142,
    "tests/tournaments/services/test_board_analysis.py": 133,
    "tests/tournaments/online/test_table_page.py": 131,
    "tests/tournaments/views/test_console_online_browser.py": 119,
    "tests/config/test_settings.py": 106,
    "tests/tournaments/views/test_browser_paper.py": 93,
    "tests/simulation/test_view_board.py": 92,
    "tests/tournaments/test_who_sees_what.py": 88,
    "tests/tournaments/robots/test_robot_tournament.py": 78,
    "tests/tournaments/views/test_console_browser.py": 77,
    "tests/tournaments/views/test_console_movement_browser.py": 71,
    "tests/tournaments/online/test_table_keyboard.py": 69,
    "tests/tournaments/services/test_permissions.py": 66,
    "tests/play/test_properties.py": 62,
    "tests/tournaments/api/test_fuzz.py": 62,
    "tests/tournaments/admin/test_browser_settings.py": 59,
    "tests/tournaments/views/test_browser_cards_and_accounts.py": 58,
    "tests/tournaments/robots/test_robot_mitchell.py": 53,
    "tests/tournaments/services/test_clock_walkthrough.py": 52,
    "tests/tournaments/services/test_clock_concurrency.py": 52,
    "tests/tournaments/online/test_table_round_start.py": 51,
    "tests/scoring/test_properties.py": 45,
    "tests/tournaments/robots/test_robot_pause.py": 42,
    "tests/tournaments/online/test_table_claims_browser.py": 41,
    "tests/tournaments/views/test_board_replay.py": 40,
    "tests/tournaments/views/test_embedded_analysis.py": 39,
    "tests/tournaments/views/test_queries.py": 37,
    "tests/tournaments/online/test_table_page_clock.py": 35,
    "tests/tournaments/pages/test_movement_labels_browser.py": 34,
    "tests/tournaments/online/test_tournament.py": 34,
    "tests/tournaments/online/test_table_pause.py": 33,
    "tests/tournaments/test_celery_clock.py": 29,
    "tests/tournaments/online/test_ws_servers.py": 28,
    "tests/tournaments/views/test_movement_browser.py": 26,
    "tests/tournaments/services/test_simulation.py": 26,
    "tests/tournaments/test_csp_browser.py": 25,
    "tests/tournaments/api/test_tokens.py": 25,
    "tests/tournaments/views/test_travelling_sets_browser.py": 25,
    "tests/tournaments/views/test_pages.py": 25,
    "tests/tournaments/views/test_console.py": 24,
    "tests/tournaments/online/test_table_bell_browser.py": 23,
    "tests/tournaments/test_http_limits.py": 22,
    "tests/tournaments/api/test_real_club_events.py": 22,
    "tests/tournaments/online/test_socket_language.py": 21,
    "tests/tournaments/services/test_round_close_fast.py": 20,
    "tests/tournaments/api/test_refusals.py": 19,
    "tests/tournaments/online/test_ws.py": 18,
    "tests/tournaments/robots/test_robot_patience.py": 18,
    "tests/tournaments/views/test_browser_history.py": 17,
    "tests/tournaments/admin/test_actions.py": 17,
    "tests/tournaments/views/test_two_winners_browser.py": 16,
    "tests/scoring/test_neuberg_expected.py": 15,
    "tests/tournaments/services/test_travelling_sets.py": 13,
    "tests/tournaments/views/test_results_grid_adjusted.py": 13,
    "tests/tournaments/services/test_clock_drivers.py": 13,
    "tests/tournaments/admin/test_browser_late_entry.py": 12,
    "tests/tournaments/services/test_tournament_limits.py": 12,
    "tests/tournaments/exports/test_usebio.py": 12,
    "tests/pairing/test_properties.py": 11,
    "tests/tournaments/online/test_socket_limits.py": 11,
    "tests/tournaments/online/test_bell_fanout.py": 10,
    "tests/tournaments/pages/test_movement_labels.py": 10,
    "tests/tournaments/api/test_docs.py": 9,
    "tests/pairing/test_matching.py": 9,
    "tests/tournaments/views/test_two_winners_pages.py": 8,
    "tests/tournaments/exports/test_pbn.py": 8,
    "tests/tournaments/test_limits.py": 8,
    "tests/tournaments/online/test_leaks.py": 8,
    "tests/tournaments/services/test_withdrawals_and_late_entries.py": 8,
    "tests/tournaments/online/test_socket_auth.py": 7,
    "tests/tournaments/online/test_refusals.py": 7,
    "tests/tournaments/online/test_records.py": 7,
    "tests/tournaments/services/test_clock_rules.py": 7,
    "tests/tournaments/test_client_address.py": 7,
    "tests/tournaments/services/test_table_director.py": 7,
    "tests/tournaments/views/test_movement_pages.py": 7,
    "tests/teams/test_vp.py": 6,
    "tests/config/test_layers.py": 6,
    "tests/tournaments/exports/test_hostile.py": 6,
    "tests/tournaments/services/test_movement_events.py": 6,
    "tests/scoring/test_two_winners.py": 6,
    "tests/bench/test_watch.py": 6,
    "tests/tournaments/services/test_settings_change.py": 6,
    "tests/tournaments/api/test_endpoints.py": 6,
    "tests/tournaments/views/test_console_online.py": 5,
    "tests/pairing/test_examples.py": 5,
    "tests/tournaments/services/test_registration.py": 5,
    "tests/tournaments/api/test_movement_api.py": 5,
    "tests/tournaments/online/test_events.py": 5,
    "tests/tournaments/services/test_settings_locked.py": 5,
    "tests/tournaments/services/test_two_winners.py": 4,
    "tests/tournaments/views/test_score_notation_language_and_time.py": 4,
    "tests/tournaments/services/test_adjusted_scores.py": 4,
    "tests/tournaments/online/test_views.py": 4,
    "tests/tournaments/services/test_hostile_names.py": 4,
    "tests/play/test_caches.py": 4,
    "tests/tournaments/online/test_round_state.py": 4,
    "tests/tournaments/views/test_score_card.py": 4,
    "tests/tournaments/services/test_neuberg_movement.py": 3,
    "tests/tournaments/online/test_kibitz.py": 3,
    "tests/tournaments/test_login_lockout.py": 3,
    "tests/simulation/test_robot.py": 3,
    "tests/tournaments/views/test_hot_paths.py": 3,
    "tests/tournaments/online/test_kibitz_page.py": 3,
    "tests/scoring/test_contract.py": 3,
    "tests/tournaments/services/test_result_history.py": 3,
    "tests/movements/test_generate.py": 3,
}


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def longest_first(items: list) -> None:
    """Reorders pytest's items in place: whole files, longest first (stable, so the
    tests of a file stay in their order and equal files in the collection's)."""
    estimates: dict[str, float] = defaultdict(float)
    for item in items:
        browser = item.get_closest_marker("browser") is not None
        estimates[file_of(item.nodeid)] += (
            SECONDS_PER_UNLISTED_BROWSER_TEST if browser else SECONDS_PER_UNLISTED_TEST
        )

    def seconds(path: str) -> float:
        return SECONDS.get(path, max(estimates[path], UNLISTED_AT_LEAST))

    first_seen: dict[str, int] = {}
    for i, item in enumerate(items):
        first_seen.setdefault(file_of(item.nodeid), i)
    items.sort(key=lambda item: (-seconds(path := file_of(item.nodeid)), first_seen[path]))


def table_from_junit(path: str, limit: int = 40) -> str:
    """SECONDS's text from a `pytest --junitxml` report: the `limit` slowest files."""
    import xml.etree.ElementTree as ET

    totals: dict[str, float] = defaultdict(float)
    for case in ET.parse(path).iter("testcase"):
        module = case.get("classname", "").split(".")
        # classname is the dotted module (and class); the file is the module's path.
        for cut in range(len(module), 0, -1):
            candidate = "/".join(module[:cut]) + ".py"
            if Path(candidate).is_file():
                totals[candidate] += float(case.get("time") or 0)
                break
    rows = sorted(totals.items(), key=lambda kv: -kv[1])[:limit]
    return "\n".join(f'    "{name}": {seconds:.0f},' for name, seconds in rows)


if __name__ == "__main__":
    print(table_from_junit(sys.argv[1] if len(sys.argv) > 1 else "test-artifacts/junit.xml"))
