"""Scoring engine of the Swiss-pairs director: pure Python and numpy, no Django.

Contracts and results (RULES 5.1)
    parse_contract(text) -> Contract | None      "4S", "4♠x", "3nt", "PASS" (None)
    contract_score(contract, declarer, tricks, vulnerability) -> int   NS score
    tricks_from_result(contract, "=" | "+1" | "-2") -> int
    validate_declarer(d) -> "N"|"E"|"S"|"W";  validate_tricks(t) -> int 0–13
The vocabulary
    SEATS (clockwise), SIDES, SUITS, RANKS, STRAINS; side_of, partner_of, seat_offset
Boards (RULES 2)
    board_dealer(n) -> "N"|"E"|"S"|"W";  board_vulnerability(n) -> "None"|"NS"|"EW"|"Both"
Field scoring of one board (RULES 5.2–5.4), results in input order
    imps(difference) -> int
    matchpoint_percentages(ns_scores) -> list[float]
    cross_imps(ns_scores) -> list[float]
    datum_imps(ns_scores) -> (datum, list[int])
    score_board(method, entries, *, neuberg=False, expected=None) -> BoardScores
        method "MP" | "IMP" | "XIMP"; an entry is an NS score or (ns_code, ew_code)
        with codes "A+", "A", "A-" for artificial adjusted scores; `expected`:
        Neuberg's E from a movement (RULES 10), None = the entries.
Totals, ranking and master points (RULES 5.3, 6, 7)
    running_total(method, board_points) -> float   IMP: sum; MP: mean (0.0 if none)
    running_totals(method, [board_points]) -> list[float]   many pairs at once
    settled_artificial(method, code, own) -> float  A+/A/A- against the pair's own % (5.4)
    pair_total(method, played_sum=, played_count=, artificial={code: n}) -> float
    pair_totals(method, codes, [(played_sum, played_count, counts)]) -> list[float]
    completion(boards_completed, total_boards) -> float
    standing_key(total, boards_completed, registration_no): the order of every standings
    tie_break(above_key, below_key) -> None | TIE_BOARDS | TIE_REGISTRATION: what
        separated two neighbours equal on total
    rank_pairs(pairs: [PairTotal], *, total_boards, threshold) -> list[RankedPair]
        pairs of different `field`s ("NS", "EW": two winners, RULES 10) ranked apart
    field_positions([(field, standing_key)]) -> list[int]   positions within each field
    master_points(completed_pairs) -> list[int]    points for ranks 1..F
    rank_title(master_point_total, thresholds=DEFAULT_TITLE_THRESHOLDS) -> index into
        RANK_TITLES, the twelve (code, Chinese, English) titles from lowest to highest

Every refusal raises ScoringError (a ValueError; ContractError for contracts, declarers
and results) with a message fit to show the user.
"""

from .adjusted import own_percentage, pair_total, pair_totals, settled_artificial
from .board import (
    RANKS,
    SEATS,
    SIDES,
    SUITS,
    VULNERABILITIES,
    board_dealer,
    board_vulnerability,
    partner_of,
    seat_offset,
    side_is_vulnerable,
    side_of,
    validate_vulnerability,
)
from .contract import (
    STRAINS,
    Contract,
    contract_score,
    declarer_score,
    parse_contract,
    tricks_from_result,
    validate_declarer,
    validate_tricks,
)
from .errors import ContractError, ScoringError
from .field import (
    ARTIFICIAL_IMPS,
    ARTIFICIAL_PERCENT,
    DATUM_ROUNDINGS,
    HALF_AWAY,
    HALF_EVEN,
    METHODS,
    BoardScores,
    cross_imps,
    datum_discard_count,
    datum_imps,
    matchpoint_percentages,
    score_board,
    validate_method,
)
from .imps import IMP_THRESHOLDS, imps
from .masterpoints import (
    DEFAULT_TITLE_THRESHOLDS,
    RANK_TITLES,
    master_points,
    master_points_for_rank,
    rank_title,
    validate_title_thresholds,
)
from .ranking import (
    TIE_BOARDS,
    TIE_REGISTRATION,
    PairTotal,
    RankedPair,
    completion,
    field_positions,
    rank_pairs,
    running_total,
    running_totals,
    standing_key,
    tie_break,
    total_from_sum,
)

__all__ = [
    "ARTIFICIAL_IMPS",
    "ARTIFICIAL_PERCENT",
    "DEFAULT_TITLE_THRESHOLDS",
    "IMP_THRESHOLDS",
    "METHODS",
    "RANK_TITLES",
    "RANKS",
    "SEATS",
    "SIDES",
    "STRAINS",
    "SUITS",
    "VULNERABILITIES",
    "BoardScores",
    "Contract",
    "ContractError",
    "PairTotal",
    "RankedPair",
    "ScoringError",
    "board_dealer",
    "board_vulnerability",
    "completion",
    "contract_score",
    "cross_imps",
    "DATUM_ROUNDINGS",
    "HALF_AWAY",
    "HALF_EVEN",
    "datum_discard_count",
    "datum_imps",
    "field_positions",
    "declarer_score",
    "imps",
    "master_points",
    "master_points_for_rank",
    "own_percentage",
    "partner_of",
    "pair_total",
    "pair_totals",
    "matchpoint_percentages",
    "parse_contract",
    "rank_pairs",
    "rank_title",
    "running_total",
    "running_totals",
    "score_board",
    "seat_offset",
    "settled_artificial",
    "side_is_vulnerable",
    "side_of",
    "standing_key",
    "tie_break",
    "TIE_BOARDS",
    "TIE_REGISTRATION",
    "total_from_sum",
    "tricks_from_result",
    "validate_declarer",
    "validate_method",
    "validate_title_thresholds",
    "validate_tricks",
    "validate_vulnerability",
]
