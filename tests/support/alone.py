"""The tests that time something against a bound (a round trip's p99, a socket closed
within a period plus a margin): `scripts/test.sh` runs them by themselves after the
parallel run, so that another worker's busy test never lands inside their measurement.
tests/conftest.py marks them `alone`. Only the standard library here: test.sh reads
FILES before Django is set up."""

from __future__ import annotations

ALONE = (
    "tests/tournaments/online/test_socket_limits.py::"
    "test_flooding_sockets_are_closed_and_other_tables_play_on",
    "tests/tournaments/online/test_socket_auth.py::test_logging_out_closes_the_socket_of_that_login",
    "tests/tournaments/online/test_socket_auth.py::test_revoking_a_token_closes_its_sockets",
)

FILES = sorted({node.split("::")[0] for node in ALONE})

if __name__ == "__main__":
    print(" ".join(FILES))
