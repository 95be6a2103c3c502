"""Double-dummy analysis of a board for its hand record: tricks per declarer and strain, par.

The solve (endplay's bundled DDS) takes a noticeable fraction of a second, and a closed
board's deal never changes, so the answer is stored on the board the first time the
hand record is shown and read back from there afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Board

SEATS = ("N", "E", "S", "W")
STRAINS = ("C", "D", "H", "S", "NT")  # the order of a makeable-contracts table
FORMAT_VERSION = 1


@dataclass(frozen=True)
class ParContract:
    level: int
    strain: str
    doubling: int  # 0, 1 (X), 2 (XX)
    declarers: str  # "N", "NS", "E", "EW", … : the seats it is par from
    result: int  # overtricks (+) or undertricks (-) at double dummy


@dataclass(frozen=True)
class DoubleDummy:
    tricks: dict[str, dict[str, int]]  # {"N": {"C": 7, …, "NT": 8}, …}
    par_score: int  # NS view
    par_contracts: list[ParContract]

    def makeable(self, seat: str, strain: str) -> int | None:
        """The highest level `seat` makes in `strain` at double dummy, or None."""
        level = self.tricks[seat][strain] - 6
        return level if level >= 1 else None


def double_dummy(*, board: Board) -> DoubleDummy:
    """The board's analysis, solved and stored on first use."""
    data = board.double_dummy
    if not data or data.get("v") != FORMAT_VERSION:
        data = solve(board.deal, vulnerability=board.vulnerability, dealer=board.dealer)
        # Two first viewers at once both solve and store the same answer: harmless.
        Board.objects.filter(pk=board.pk).update(double_dummy=data)
        board.double_dummy = data
    return _from_data(data)


def solve(deal: str, *, vulnerability: str, dealer: str) -> dict:
    """Solve a PBN deal; JSON-ready data (see `_from_data`)."""
    from endplay.dds import calc_dd_table, par
    from endplay.types import Deal, Denom, Penalty, Player, Vul

    vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "Both": Vul.both}[vulnerability]
    players = dict(zip(SEATS, (Player.north, Player.east, Player.south, Player.west), strict=True))
    denoms = {
        Denom.clubs: "C",
        Denom.diamonds: "D",
        Denom.hearts: "H",
        Denom.spades: "S",
        Denom.nt: "NT",
    }
    table = calc_dd_table(Deal.from_pbn(deal))
    # to_list() is indexed [strain][player] in endplay's order: ♠ ♥ ♦ ♣ NT; N E S W.
    rows = table.to_list()
    endplay_strains = ("S", "H", "D", "C", "NT")
    tricks = {
        seat: {strain: rows[s][p] for s, strain in enumerate(endplay_strains)}
        for p, seat in enumerate(SEATS)
    }
    par_list = par(table, vul, players[dealer])
    doubling = {Penalty.passed: 0, Penalty.doubled: 1, Penalty.redoubled: 2}
    contracts: dict[tuple, str] = {}
    for contract in par_list:
        key = (
            contract.level,
            denoms[contract.denom],
            doubling[contract.penalty],
            contract.result,
        )
        seat = SEATS[int(contract.declarer)]
        if seat not in contracts.get(key, ""):
            contracts[key] = contracts.get(key, "") + seat
    return {
        "v": FORMAT_VERSION,
        "tricks": tricks,
        "par_score": int(par_list.score),
        "par": [
            {"level": k[0], "strain": k[1], "doubling": k[2], "result": k[3], "declarers": seats}
            for k, seats in contracts.items()
        ],
    }


def _from_data(data: dict) -> DoubleDummy:
    return DoubleDummy(
        tricks=data["tricks"],
        par_score=data["par_score"],
        par_contracts=[ParContract(**p) for p in data["par"]],
    )
