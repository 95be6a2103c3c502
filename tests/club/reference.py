"""The club's rules written again from SPEC 13's (and 5.2/5.3's) words, result by result,
sharing no code with `club` or `scoring`: the oracles the property tests compare with.

Slow and plain on purpose (O(n²) matchpoints, a replay of every arrival).
"""

from hypothesis import strategies as st

from club import TableResult

# SPEC 5.2, typed again: a difference of at least each band earns one more IMP.
IMP_BANDS = (20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900,
             1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000)  # fmt: skip


def ref_imps(difference):
    won = sum(1 for band in IMP_BANDS if abs(difference) >= band)
    return won if difference >= 0 else -won


def ref_datum(scores):
    """SPEC 5.3/13: drop the k highest and k lowest, mean, to the nearest 10, a 5 to the even
    ten. k = max(1, n // 10), except that n ≤ 2 drops nothing (SPEC 5.3)."""
    n = len(scores)
    k = 0 if n <= 2 else max(1, n // 10)
    kept = sorted(scores)[k : n - k]
    tens, rest = divmod(sum(kept), 10 * len(kept))  # mean = 10 · (tens + rest / (10·m))
    if 2 * rest > 10 * len(kept) or (2 * rest == 10 * len(kept) and tens % 2 == 1):
        tens += 1
    return 10 * tens


def ref_percentages(scores):
    """SPEC 5.3's MP: 2 per result beaten, 1 per tie, over 2(n − 1); 50 for a lone one."""
    n = len(scores)
    if n == 1:
        return [50.0]
    points = []
    for i, mine in enumerate(scores):
        mp = sum(
            2 if mine > theirs else 1 if mine == theirs else 0
            for j, theirs in enumerate(scores)
            if j != i
        )
        points.append(mp * 100 / (2 * (n - 1)))
    return points


def ref_duplicate_replay(ns_scores):
    """Replay the arrivals by SPEC 13's duplicate rule, keeping a ledger per seat: each
    result's fixed NS IMPs (None while waiting), and the week's points added at each arrival
    (a list of dicts: seat key (result, seat) -> change)."""
    fixed = [None] * len(ns_scores)
    ledger = []
    for n in range(1, len(ns_scores) + 1):
        so_far = ns_scores[:n]
        changes = {}
        if n < 6:
            for seat in "NESW":
                changes[(n - 1, seat)] = 0
        else:
            datum = ref_datum(so_far)
            for i in range(6) if n == 6 else [n - 1]:
                fixed[i] = (datum, ref_imps(so_far[i] - datum))
                for seat in "NESW":
                    sign = 1 if seat in "NS" else -1
                    changes[(i, seat)] = sign * fixed[i][1]
        ledger.append(changes)
    return fixed, ledger


def player(index, seat):
    """A distinct player for each seat of each result."""
    return f"{seat}{index}"


def results_of(ns_scores):
    return [TableResult(s, *(player(i, seat) for seat in "NESW")) for i, s in enumerate(ns_scores)]


# Scores as the club sees them: Law 77's multiples of 10 within ±7600, a few common ones
# (so ties abound), and scores around a half-ten datum.
any_score = st.integers(-760, 760).map(lambda tens: tens * 10)
common_score = st.sampled_from([-200, -100, -50, 0, 110, 140, 400, 420, 430, 450, 620, 650])
score = st.one_of(any_score, common_score)
