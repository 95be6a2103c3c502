"""An independent reading of the scoring laws for the vugraph tests: Law 77 and the WBF IMP
scale written out again from SPEC 5.1 and 5.2, sharing no code with `scoring` or `teams`."""

from __future__ import annotations

# SPEC 5.2, the table's lower bounds: a difference of at least bound[i] is worth i IMPs.
IMP_BOUNDS = [0, 20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100,
              1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]  # fmt: skip


def imps_for(difference: int) -> int:
    size = abs(difference)
    won = max(i for i, bound in enumerate(IMP_BOUNDS) if size >= bound)
    return won if difference >= 0 else -won


def declarer_points(level: int, strain: str, doubling: int, vulnerable: bool, tricks: int) -> int:
    """SPEC 5.1 from the declaring side's view; ``doubling`` 0, 1, 2."""
    needed = level + 6
    factor = (1, 2, 4)[doubling]
    if tricks < needed:
        down = needed - tricks
        if doubling == 0:
            return -down * (100 if vulnerable else 50)
        # doubled: first, second and third, then each further
        steps = [200, 300, 300] if vulnerable else [100, 200, 200]
        steps += [300] * 10
        return -sum(steps[:down]) * (2 if doubling == 2 else 1)
    per_trick = 20 if strain in ("C", "D") else 30
    trick_score = per_trick * level + (10 if strain == "NT" else 0)
    trick_score *= factor
    score = trick_score
    score += (500 if vulnerable else 300) if trick_score >= 100 else 50
    if level == 6:
        score += 750 if vulnerable else 500
    if level == 7:
        score += 1500 if vulnerable else 1000
    if doubling:
        score += 50 * doubling
    over = tricks - needed
    if doubling == 0:
        score += over * per_trick
    else:
        score += over * (200 if vulnerable else 100) * doubling
    return score


def ns_points(contract, declarer: str | None, tricks: int, vulnerability: str) -> int:
    """The NS score of a result: ``contract`` a ``scoring.Contract``-like (level, strain,
    doubling) or None for a pass-out."""
    if contract is None:
        return 0
    side = "NS" if declarer in ("N", "S") else "EW"
    vulnerable = vulnerability in ("Both", side)
    points = declarer_points(contract.level, contract.strain, contract.doubling, vulnerable, tricks)
    return points if side == "NS" else -points
