"""The test suite. Tests live in folders that mirror the packages they test; helpers shared
between test files live in `tests/support/`."""

import os

# `make test-fast` runs the pure cores' tests with fewer random examples, for a quick
# answer while working; `make test` always runs them all.
_FAST = os.environ.get("TESTS_FAST") == "1"


def examples(count: int) -> int:
    """How many examples a property test draws: `count`, or a tenth in a fast run."""
    return max(20, count // 10) if _FAST else count
