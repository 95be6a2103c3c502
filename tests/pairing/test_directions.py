"""NS/EW balance over a long event in a large random field."""

import random

from pairing import seat_first_round, seat_round
from pairing.simulate import new_field, play_round


def test_directions_stay_balanced_over_an_even_number_of_rounds():
    n, rounds = 400, 12
    rng = random.Random(2024)
    pairs = new_field(n)
    for r in range(1, rounds + 1):
        seating = seat_first_round(pairs) if r == 1 else seat_round(pairs)
        assert seating.rematches == 0
        pairs = play_round(pairs, seating, rng)
        balance = [abs(p.ns_count - p.ew_count) for p in pairs]
        # after round r the balance has the parity of r; the rule keeps most pairs at the
        # least possible imbalance (0 after an even round, 1 after an odd one)
        assert sum(b <= 1 for b in balance) >= 0.65 * n
        # two pairs that both sat NS more must meet now and then, and one of them goes one
        # further: 3 after an odd round is normal, 4 rare (see the report in swiss.py)
        assert max(balance) <= 4
    assert max(abs(p.ns_count - p.ew_count) for p in pairs) <= 2
    assert sum(p.ns_count for p in pairs) == sum(p.ew_count for p in pairs) == n // 2 * rounds


def test_each_pair_alternates_when_opponents_allow():
    """Round 2 of a fresh field: every pair that sat EW in round 1 and meets a pair that sat
    NS in round 1 now sits NS."""
    rng = random.Random(1)
    pairs = new_field(40)
    pairs = play_round(pairs, seat_first_round(pairs), rng)
    by_id = {p.pair_id: p for p in pairs}
    for table in seat_round(pairs).tables:
        ns, ew = by_id[table.ns], by_id[table.ew]
        if ns.ns_count != ew.ns_count:
            assert ns.ew_count == 1 and ew.ns_count == 1
