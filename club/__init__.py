"""The club's scoring rules (SPEC 13, all but the Rate), pure Python, no Django.

Free play is scored against everyone who has played the same deal. Every function takes a
deal's results as `TableResult`s (NS score, the four players N E S W) in arrival order and
answers in points per player, for the database layer to apply in one transaction.

- `deal`: `TableResult`, the checks shared by every system (at most `RETIRED_AT` = 40
  results; a player never has two results on one deal).
- `duplicate` (复式记分): scores fixed once given. `duplicate_arrival(stored, new)`: nothing
  while n < 6 (the four stored at 0), all six at n = 6, the new one alone after, retired
  at 40, a 41st refused; `duplicate_scores` / `duplicate_points`: the same from scratch.
- `full_field` (全场记分): every result against the datum of all so far, re-scored at each
  arrival, and MP percentages among the deal's results: `full_field_scores(results)`,
  `full_field_arrival(stored, new)` (the new scores and each player's IMP change).
- `handicap` (贴点): `HANDICAP_TABLE` as SPEC prints it, `side_hcp(deal)`,
  `expected_ns_score(H_NS, ns_vulnerable=, ew_vulnerable=)` (H < 20: −E of the other side),
  `handicap_imps`, `score_handicap(deal, vulnerability, result)`.
- `penalties` (断线扣分): `DISCONNECTION_PENALTIES` (handicap −20 of the total, duplicate
  and full field −16 of the week), `count_disconnections` (one per outage longer than the
  grace period, overlapping reports merged), `disconnection_penalty`,
  `disconnection_penalties`.

The datum and the IMPs are `scoring`'s (`datum_imps`, `imps`, `matchpoint_percentages`).
Every refusal is a `ClubError` (a `scoring.ScoringError`) with a message fit to show; a
deal that is not four hands of 13 cards is refused by `play.parse_deal` (`DealError`).
"""

from .deal import MAX_SCORE, RETIRED_AT, TableResult, check_results, validate_ns_score
from .duplicate import (
    SCORED_AT,
    DuplicateArrival,
    ResultScore,
    duplicate_arrival,
    duplicate_points,
    duplicate_scores,
)
from .errors import ClubError
from .full_field import FieldArrival, FieldScores, full_field_arrival, full_field_scores
from .handicap import (
    DECK_HCP,
    HANDICAP_TABLE,
    HCP_VALUES,
    HandicapScore,
    expectation,
    expected_ns_score,
    hand_hcp,
    handicap_imps,
    score_handicap,
    side_hcp,
)
from .penalties import (
    DEFAULT_GRACE,
    DISCONNECTION_PENALTIES,
    DUPLICATE,
    FULL_FIELD,
    HANDICAP,
    SYSTEMS,
    TOTAL,
    WEEK,
    Outage,
    Penalty,
    count_disconnections,
    disconnection_penalties,
    disconnection_penalty,
)

__all__ = [
    "DECK_HCP",
    "DEFAULT_GRACE",
    "DISCONNECTION_PENALTIES",
    "DUPLICATE",
    "FULL_FIELD",
    "HANDICAP",
    "HANDICAP_TABLE",
    "HCP_VALUES",
    "MAX_SCORE",
    "RETIRED_AT",
    "SCORED_AT",
    "SYSTEMS",
    "TOTAL",
    "WEEK",
    "ClubError",
    "DuplicateArrival",
    "FieldArrival",
    "FieldScores",
    "HandicapScore",
    "Outage",
    "Penalty",
    "ResultScore",
    "TableResult",
    "check_results",
    "count_disconnections",
    "disconnection_penalties",
    "disconnection_penalty",
    "duplicate_arrival",
    "duplicate_points",
    "duplicate_scores",
    "expectation",
    "expected_ns_score",
    "full_field_arrival",
    "full_field_scores",
    "hand_hcp",
    "handicap_imps",
    "score_handicap",
    "side_hcp",
    "validate_ns_score",
]
