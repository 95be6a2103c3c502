"""The one way into the double-dummy solver (endplay's bundled DDS) in this code base.

Why a lock: DDS keeps global state in the C library (its thread pool, transposition tables
and scratch memory) and is not thread-safe. endplay calls it through ctypes, which releases
the GIL, so two Python threads solving at once run inside DDS together and corrupt that
state: eight board pages solved in parallel by the threaded development server printed
"Sum 8 is not four" and then killed the whole process with SIGSEGV (a gunicorn gthread
worker dies the same way). So every solver call of a process goes through `_SOLVER`, here,
and no other module imports `endplay.dds` (a test reads the sources to check:
tests/tournaments/services/test_board_analysis.py).
Separate processes (Celery prefork children, `run_clock`, `play_demo`) each have their own
DDS and their own lock.

Nothing here knows Django: deals come in as PBN strings, answers go out as plain data
(dicts and lists of str and int, ready for a JSONField). Web requests never call this
module; the boards are analysed after their round closes
(`tournaments.services.analysis.analyse_pending_boards`).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Sequence
from typing import Any, NamedTuple

from scoring import SEATS, VULNERABILITIES

# endplay is imported inside the functions that solve, not for a cycle: importing it costs
# seconds (endplay.dealer) and loads DDS, which web processes, which never solve, skip.


def endplay_without_its_dealer() -> None:
    """Lets `import endplay.dds` (or .types, .parsers …) load just that subpackage.

    endplay's own __init__ imports every subpackage, endplay.dealer among them, and the
    dealer's output actions import matplotlib.pyplot: about a second of CPU in each
    process that solves (and in each test worker: the tests read PBN back with
    endplay.parsers), for a plotting library nothing here uses. So the package is put in
    sys.modules unexecuted (its __path__ is the real one: every submodule imports as
    usual), and its __init__ runs the first time anyone asks the package itself for a
    name (`from endplay import Deal`, `endplay.dealer`…): then it is all there, as
    before. Nothing changes if endplay is already imported."""
    if "endplay" in sys.modules:
        return
    spec = importlib.util.find_spec("endplay")
    if spec is None or spec.loader is None:
        return  # not installed: the solving functions' imports say so
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def load_the_rest(name: str) -> Any:
        # The package's own __init__, on the first name it is asked for (PEP 562).
        package.__dict__.pop("__getattr__", None)
        loader.exec_module(package)
        return getattr(package, name)

    package.__dict__["__getattr__"] = load_the_rest
    sys.modules["endplay"] = package


endplay_without_its_dealer()

# scoring.SEATS (N E S W) is endplay's Player order too; its Denom order (spades first,
# not scoring.STRAINS' bidding order) is the row order of DDTable.to_list().
_DENOM_ORDER = ("S", "H", "D", "C", "NT")

# Deals per solver call. DDS's CalcAllTables solves several deals at once on all cores
# and takes at most MAXNOOFTABLES (40) deals with all five strains; 32 stays under it.
BATCH = 32

Tricks = dict[str, dict[str, int]]  # {"N": {"C": 7, "D": 8, "H": 6, "S": 9, "NT": 8}, …}

# DDS is not thread-safe (see above): one solver call at a time per process, whoever asks.
_SOLVER = threading.Lock()

# A deal's table never changes: each deal is solved once per process (the simulation
# solves a board's deal to play it, the analysis then only adds par).
_TABLES: dict[str, Tricks] = {}
_TABLES_LIMIT = 20_000


class Deal(NamedTuple):
    """A deal to analyse: the PBN deal ("N:hand hand hand hand"), who is vulnerable
    ("None", "NS", "EW", "Both") and the dealer ("N", "E", "S", "W"): par needs both."""

    pbn: str
    vulnerability: str = "None"
    dealer: str = "N"


def tricks(deals: Sequence[str]) -> list[Tricks]:
    """Double-dummy tricks for each declarer and strain of each PBN deal."""
    found: dict[str, Tricks] = {}
    for pbn in dict.fromkeys(deals):
        if (table := _TABLES.get(pbn)) is not None:
            found[pbn] = table
    missing = [pbn for pbn in dict.fromkeys(deals) if pbn not in found]
    for start in range(0, len(missing), BATCH):
        with _SOLVER:  # one batch at a time, so other callers take turns
            chunk = []
            for pbn in missing[start : start + BATCH]:
                # Another thread may have solved it while this one waited.
                if (table := _TABLES.get(pbn)) is not None:
                    found[pbn] = table
                else:
                    chunk.append(pbn)
            if chunk:
                solved = dict(zip(chunk, _solve_batch(chunk), strict=True))
                if len(_TABLES) + len(solved) > _TABLES_LIMIT:
                    _TABLES.clear()
                _TABLES.update(solved)
                found.update(solved)
    return [found[pbn] for pbn in deals]


def _solve_batch(pbns: Sequence[str]) -> list[Tricks]:
    """One solver call for at most BATCH deals; only ever called holding `_SOLVER`."""
    # endplay loads lazily (seconds; web processes never solve): see the note at the top.
    from endplay.dds import calc_all_tables
    from endplay.types import Deal as EndplayDeal

    if len(pbns) > BATCH:
        raise ValueError(f"{len(pbns)} deals in one solver call; at most {BATCH}")
    tables = calc_all_tables([EndplayDeal.from_pbn(pbn) for pbn in pbns])
    return [_tricks_of(tables[i]) for i in range(len(pbns))]


def analyse(deals: Sequence[Deal]) -> list[dict]:
    """Each deal's tricks table and par, as plain data:

    {"tricks": Tricks, "par_score": int (NS view),
     "par": [{"level", "strain", "doubling" (0, 1 X, 2 XX), "result" (over/undertricks),
              "declarers" ("N", "NS", …)}, …]}
    """
    for deal in deals:
        if deal.vulnerability not in VULNERABILITIES or deal.dealer not in SEATS:
            raise ValueError(f"not a vulnerability and dealer: {deal!r}")
    tables = tricks([deal.pbn for deal in deals])
    # endplay loads lazily (seconds; web processes never solve): see the note at the top.
    from endplay.dds import par

    with _SOLVER:  # par is a DDS call too (fast: it works from the table)
        pars = [
            _par_of(par(_dd_table(table), _vul(deal.vulnerability), _player(deal.dealer)))
            for deal, table in zip(deals, tables, strict=True)
        ]
    return [
        {"tricks": table, "par_score": score, "par": contracts}
        for table, (score, contracts) in zip(tables, pars, strict=True)
    ]


# --- endplay's types, both ways: the only place that knows their layout ------------------


def _tricks_of(table) -> Tricks:
    """An endplay DDTable as {seat: {strain: tricks}}."""
    rows = table.to_list()  # [denom][player], denoms ♠ ♥ ♦ ♣ NT, players N E S W
    return {
        seat: {strain: int(rows[d][p]) for d, strain in enumerate(_DENOM_ORDER)}
        for p, seat in enumerate(SEATS)
    }


def _dd_table(table: Tricks):
    """{seat: {strain: tricks}} back as an endplay DDTable (for par)."""
    # endplay loads lazily (seconds; web processes never solve): see the note at the top.
    import endplay._dds as dds
    from endplay.dds.ddtable import DDTable

    data = dds.ddTableResults()
    for d, strain in enumerate(_DENOM_ORDER):
        for p, seat in enumerate(SEATS):
            data.resTable[d][p] = table[seat][strain]
    return DDTable(data)


def _par_of(par_list) -> tuple[int, list[dict]]:
    # endplay loads lazily (seconds; web processes never solve): see the note at the top.
    from endplay.types import Penalty

    doubling = {Penalty.passed: 0, Penalty.doubled: 1, Penalty.redoubled: 2}
    contracts: dict[tuple, str] = {}
    for contract in par_list:
        key = (
            int(contract.level),
            _DENOM_ORDER[int(contract.denom)],
            doubling[contract.penalty],
            int(contract.result),
        )
        seat = SEATS[int(contract.declarer)]
        if seat not in contracts.get(key, ""):
            contracts[key] = contracts.get(key, "") + seat
    return int(par_list.score), [
        {"level": k[0], "strain": k[1], "doubling": k[2], "result": k[3], "declarers": seats}
        for k, seats in contracts.items()
    ]


def _vul(vulnerability: str):
    # endplay loads lazily (seconds; web processes never solve): see the note at the top.
    from endplay.types import Vul

    return {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "Both": Vul.both}[vulnerability]


def _player(seat: str):
    # endplay loads lazily (seconds; web processes never solve): see the note at the top.
    from endplay.types import Player

    return Player(SEATS.index(seat))


def best_cards(
    hands: dict[str, Sequence[str]], strain: str, leader: str, trick: Sequence[str]
) -> list[str]:
    """The cards of the hand to play now that keep the most tricks for its side, double
    dummy (endplay's `solve_board`): `hands` the cards still held by seat ("SA", "HT" …),
    `strain` the contract's ("S" … "NT"), `leader` who led to the current trick and
    `trick` the cards played to it so far (they are in `hands` no more)."""
    solved = _solve_position(hands, strain, leader, trick)
    if not solved:
        return []
    most = max(tricks for _card, tricks in solved)
    return [card for card, tricks in solved if tricks == most]


def most_tricks(
    hands: dict[str, Sequence[str]], strain: str, leader: str, trick: Sequence[str]
) -> int:
    """The tricks still to play (the current one included) that the side of the hand to
    play now takes, double dummy, both sides playing their best (a claim's check: the
    Blue Chip gateway answers a person's claim for a program with it)."""
    solved = _solve_position(hands, strain, leader, trick)
    return max((tricks for _card, tricks in solved), default=0)


def _solve_position(
    hands: dict[str, Sequence[str]], strain: str, leader: str, trick: Sequence[str]
) -> list[tuple[str, int]]:
    """(card, tricks for its side) for each card the hand to play may play."""
    from endplay.dds import solve_board
    from endplay.types import Card as EndplayCard
    from endplay.types import Deal as EndplayDeal
    from endplay.types import Denom

    pbn = "N:" + " ".join(
        ".".join(
            "".join(card[1] for card in _by_rank(hands[seat]) if card[0] == suit)
            for suit in ("S", "H", "D", "C")
        )
        for seat in SEATS
    )
    for i, card in enumerate(trick):  # back in the hands they came from, then played
        seat = SEATS[(SEATS.index(leader) + i) % 4]
        pbn = _with_card(pbn, seat, card)
    deal = EndplayDeal.from_pbn(pbn)
    deal.first = _player(leader)
    deal.trump = Denom.nt if strain == "NT" else Denom(_DENOM_ORDER.index(strain))
    for card in trick:
        deal.play(EndplayCard(card[0] + card[1]))
    with _SOLVER:
        return [(_card_of(card), int(tricks)) for card, tricks in solve_board(deal)]


_RANK_ORDER = "AKQJT98765432"


def _by_rank(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda card: _RANK_ORDER.index(card[1]))


def _with_card(pbn: str, seat: str, card: str) -> str:
    first, hands = pbn.split(":", 1)
    parts = hands.split(" ")
    index = SEATS.index(seat)
    suits = parts[index].split(".")
    s = ("S", "H", "D", "C").index(card[0])
    suits[s] = "".join(sorted(suits[s] + card[1], key=_RANK_ORDER.index))
    parts[index] = ".".join(suits)
    return first + ":" + " ".join(parts)


def _card_of(card) -> str:
    """An endplay Card as "SA", "HT" …"""
    return _DENOM_ORDER[int(card.suit)] + card.rank.name[1:]
