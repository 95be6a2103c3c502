"""Registration rules (RULES 1): every refusal is clear and changes nothing."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, close_old_connections, connection, transaction

from tournaments import selectors
from tournaments.errors import NotAllowed, RegistrationError
from tournaments.models import Pair, PairMember, Round, Table
from tournaments.services import registration
from tournaments.services.clock import advance

pytestmark = pytest.mark.django_db


def snapshot():
    return (
        list(Pair.objects.order_by("id").values()),
        list(PairMember.objects.order_by("id").values()),
    )


@pytest.fixture
def open_tournament(make_tournament, t0):
    return make_tournament(start_at=t0, registration_opens_at=t0 - timedelta(days=2))


@pytest.fixture
def before(t0):
    return t0 - timedelta(hours=1)


def test_propose_then_confirm_registers_in_confirmation_order(open_tournament, make_user, before):
    a, b, c, d = (make_user() for _ in range(4))
    first = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    second = registration.propose_pair(
        tournament=open_tournament, proposer=c, partner_username=d.username.upper(), now=before
    )
    assert first.status == "pending" and first.registration_no is None
    # The second pair confirms first, so it is registration no. 1 (RULES 1: order kept).
    registration.confirm_pair(pair=second, user=d, now=before + timedelta(minutes=1))
    registration.confirm_pair(pair=first, user=b, now=before + timedelta(minutes=2))
    first.refresh_from_db()
    second.refresh_from_db()
    assert (second.registration_no, first.registration_no) == (1, 2)
    assert first.status == second.status == "confirmed"
    assert first.confirmed_at == before + timedelta(minutes=2)


@pytest.mark.parametrize(
    "case",
    ["same_player", "unknown_partner", "empty_partner", "not_open_yet", "already_in_pair"],
)
def test_refused_proposals_change_nothing(case, open_tournament, make_user, before, t0):
    a, b, c = make_user(), make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=b, partner_username=c.username, now=before
    )
    registration.confirm_pair(pair=pair, user=c, now=before)
    kwargs = {"tournament": open_tournament, "proposer": a, "now": before}
    expected = {
        "same_player": (a.username, "two different players"),
        "unknown_partner": ("nobody-here", "no player called"),
        "empty_partner": ("  ", "Name your partner"),
        "not_open_yet": (b.username, "opens at"),
        "already_in_pair": (c.username, "already in a pair"),
    }[case]
    if case == "not_open_yet":
        kwargs["now"] = open_tournament.registration_opens_at - timedelta(seconds=1)
    state = snapshot()
    with pytest.raises(RegistrationError, match=expected[1]):
        registration.propose_pair(partner_username=expected[0], **kwargs)
    assert snapshot() == state


def test_registration_closes_when_round_one_starts(open_tournament, register_pairs, make_user, t0):
    pending_a, pending_b = make_user(), make_user()
    pending = registration.propose_pair(
        tournament=open_tournament,
        proposer=pending_a,
        partner_username=pending_b.username,
        now=t0 - timedelta(minutes=5),
    )
    register_pairs(open_tournament, 4)
    advance(now=t0)
    assert Round.objects.filter(tournament=open_tournament, number=1).exists()
    # A proposal the partner never confirmed lapses at the start.
    assert not Pair.objects.filter(pk=pending.pk).exists()
    x, y = make_user(), make_user()
    state = snapshot()
    with pytest.raises(RegistrationError, match="closed"):
        registration.propose_pair(
            tournament=open_tournament, proposer=x, partner_username=y.username, now=t0
        )
    with pytest.raises(RegistrationError, match="closed"):
        registration.register_pair(
            by=None, tournament=open_tournament, usernames=[x.username, y.username], now=t0
        )
    assert snapshot() == state


def test_only_the_partner_confirms_and_only_once(open_tournament, make_user, before):
    a, b, stranger = make_user(), make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    for user in (a, stranger):
        state = snapshot()
        with pytest.raises(NotAllowed):
            registration.confirm_pair(pair=pair, user=user, now=before)
        assert snapshot() == state
    registration.confirm_pair(pair=pair, user=b, now=before)
    state = snapshot()
    with pytest.raises(RegistrationError, match="already registered"):
        registration.confirm_pair(pair=pair, user=b, now=before)
    assert snapshot() == state


def test_cancel_pending_frees_both_players(open_tournament, make_user, before):
    a, b, c = make_user(), make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    with pytest.raises(NotAllowed):
        registration.cancel_pair(pair=pair, user=c)
    registration.cancel_pair(pair=pair, user=b)
    assert not Pair.objects.filter(pk=pair.pk).exists()
    again = registration.propose_pair(
        tournament=open_tournament, proposer=b, partner_username=c.username, now=before
    )
    assert again.status == "pending"


def test_cancel_refuses_a_registered_pair(open_tournament, make_user, before):
    a, b = make_user(), make_user()
    pair = registration.propose_pair(
        tournament=open_tournament, proposer=a, partner_username=b.username, now=before
    )
    registration.confirm_pair(pair=pair, user=b, now=before)
    state = snapshot()
    with pytest.raises(RegistrationError, match="withdraw"):
        registration.cancel_pair(pair=pair, user=a)
    assert snapshot() == state


def test_withdraw_rules(open_tournament, register_pairs, make_user, organiser, before):
    pair, other = register_pairs(open_tournament, 2)
    stranger = make_user()
    with pytest.raises(NotAllowed):
        registration.withdraw_pair(pair=pair, by=stranger, now=before)
    registration.withdraw_pair(pair=pair, by=pair.player2, now=before)
    pair.refresh_from_db()
    assert pair.withdrawn_at == before
    state = snapshot()
    with pytest.raises(RegistrationError, match="already withdrawn"):
        registration.withdraw_pair(pair=pair, by=organiser, now=before)
    assert snapshot() == state
    registration.withdraw_pair(pair=other, by=organiser, now=before)


def test_a_player_in_two_pairs_is_impossible_in_the_database(open_tournament, register_pairs):
    (pair,) = register_pairs(open_tournament, 1)
    with pytest.raises(IntegrityError), transaction.atomic():
        PairMember.objects.create(tournament=open_tournament, pair=pair, user=pair.player1)


def test_the_same_players_may_play_in_another_tournament(make_tournament, make_user, before):
    a, b = make_user(), make_user()
    for _ in range(2):
        registration.register_pair(
            by=None, tournament=make_tournament(), usernames=[a.username, b.username], now=before
        )
    assert Pair.objects.filter(player1=a).count() == 2


@pytest.mark.django_db(transaction=True)
def test_racing_double_registration_lets_exactly_one_through(make_tournament, make_user, t0):
    """Many threads at once try to put the same player in a pair: one wins."""
    tournament = make_tournament()
    star = make_user("star")
    partners = [make_user() for _ in range(6)]
    barrier = threading.Barrier(len(partners))
    outcomes = []

    def attempt(partner):
        close_old_connections()
        try:
            barrier.wait()
            registration.register_pair(
                by=None,
                tournament=tournament,
                usernames=[star.username, partner.username],
                now=t0 - timedelta(hours=1),
            )
            outcomes.append("ok")
        except RegistrationError as error:
            outcomes.append(str(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=(p,)) for p in partners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 1
    assert all("already in a pair" in o for o in outcomes if o != "ok")
    assert PairMember.objects.filter(tournament=tournament, user=star).count() == 1
    assert list(
        Pair.objects.filter(tournament=tournament).values_list("registration_no", flat=True)
    ) == [1]


@pytest.mark.django_db(transaction=True)
def test_database_constraint_holds_without_the_service_lock(make_tournament, make_user):
    """Even bypassing the tournament lock, two concurrent inserts cannot both commit."""
    tournament = make_tournament()
    star, p1, p2 = make_user(), make_user(), make_user()
    barrier = threading.Barrier(2)
    results = []

    def insert(partner):
        close_old_connections()
        try:
            with transaction.atomic():
                pair = Pair.objects.create(tournament=tournament, player1=star, player2=partner)
                barrier.wait()
                PairMember.objects.create(tournament=tournament, pair=pair, user=star)
            results.append("ok")
        except IntegrityError:
            results.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=insert, args=(p,)) for p in (p1, p2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["ok", "refused"]


# --- A pending proposal reserves nothing (RULES 1, issue 12) ---------------------------------


def propose(tournament, proposer, partner, now):
    return registration.propose_pair(
        tournament=tournament, proposer=proposer, partner_username=partner.username, now=now
    )


def pending_between(tournament) -> set[tuple[int, int]]:
    return set(
        Pair.objects.filter(tournament=tournament, status="pending").values_list(
            "player1_id", "player2_id"
        )
    )


def test_a_player_may_have_several_proposals_made_and_received(open_tournament, make_user, before):
    a, b, c, d = (make_user() for _ in range(4))
    propose(open_tournament, a, b, before)
    propose(open_tournament, a, c, before)
    propose(open_tournament, d, a, before)
    propose(open_tournament, b, c, before)  # b is invited by a and invites c
    assert pending_between(open_tournament) == {
        (a.pk, b.pk),
        (a.pk, c.pk),
        (d.pk, a.pk),
        (b.pk, c.pk),
    }
    assert not PairMember.objects.exists()  # nobody is held by a proposal


def test_confirming_one_cancels_both_players_other_proposals(open_tournament, make_user, before):
    a, b, c, d, e, f, g = (make_user() for _ in range(7))
    chosen = propose(open_tournament, a, b, before)
    for proposer, partner in ((a, c), (d, a), (b, e), (f, b), (f, g)):
        propose(open_tournament, proposer, partner, before)
    registration.confirm_pair(pair=chosen, user=b, now=before + timedelta(minutes=1))
    chosen.refresh_from_db()
    assert (chosen.status, chosen.registration_no) == ("confirmed", 1)
    # Only the proposal between two other players is still waiting.
    assert pending_between(open_tournament) == {(f.pk, g.pk)}
    assert set(PairMember.objects.values_list("pair_id", "user_id")) == {
        (chosen.pk, a.pk),
        (chosen.pk, b.pk),
    }


def test_a_third_partys_proposal_no_longer_blocks_anyone(open_tournament, make_user, before):
    """Anyone may propose to anyone; that must not keep them from their real partner."""
    alice, bob, pest = make_user(), make_user(), make_user()
    unwanted = propose(open_tournament, pest, alice, before)
    pair = propose(open_tournament, alice, bob, before)
    registration.confirm_pair(pair=pair, user=bob, now=before)
    assert Pair.objects.get(pk=pair.pk).status == "confirmed"
    assert not Pair.objects.filter(pk=unwanted.pk).exists()
    # Nor does it block an organiser registering the pair directly.
    carol, dave = make_user(), make_user()
    propose(open_tournament, pest, carol, before)
    registered = registration.register_pair(
        by=None, tournament=open_tournament, usernames=[carol.username, dave.username], now=before
    )
    assert registered.registration_no == 2
    assert pending_between(open_tournament) == set()


def test_a_proposal_between_the_same_two_players_is_not_made_twice(
    open_tournament, make_user, before
):
    a, b = make_user(), make_user()
    propose(open_tournament, a, b, before)
    for proposer, partner in ((a, b), (b, a)):
        state = snapshot()
        with pytest.raises(RegistrationError, match="already waiting for confirmation"):
            propose(open_tournament, proposer, partner, before)
        assert snapshot() == state


def test_a_confirmed_player_is_refused_by_the_service_in_plain_words(
    open_tournament, make_user, before
):
    a, b, c = make_user("ann"), make_user("ben"), make_user("cat")
    registration.register_pair(
        by=None, tournament=open_tournament, usernames=[a.username, b.username], now=before
    )
    attempts = [
        lambda: propose(open_tournament, c, a, before),
        lambda: propose(open_tournament, a, c, before),
        lambda: registration.register_pair(
            by=None, tournament=open_tournament, usernames=["cat", "ann"], now=before
        ),
    ]
    for attempt in attempts:
        state = snapshot()
        with pytest.raises(
            RegistrationError, match=r"^ann is already in a pair in this tournament\.$"
        ):
            attempt()
        assert snapshot() == state


def test_refusals_name_players_by_display_name_in_english(open_tournament, make_user, before):
    """Issue 15: "ux_bo already in a pair" read as neither English nor a name anyone sees."""
    a, b = make_user("ux_bo", name="Bo Wang"), make_user("ux_li", name="Li Na")
    c, d = make_user("ux_cy", name="Cy Young"), make_user()
    registration.register_pair(
        by=None, tournament=open_tournament, usernames=[a.username, b.username], now=before
    )
    with pytest.raises(RegistrationError) as one:
        registration.register_pair(
            by=None, tournament=open_tournament, usernames=["ux_bo", "ux_cy"], now=before
        )
    assert str(one.value) == "Bo Wang is already in a pair in this tournament."
    with pytest.raises(RegistrationError) as both:
        registration.register_pair(
            by=None, tournament=open_tournament, usernames=["ux_bo", "ux_li"], now=before
        )
    assert str(both.value) == "Bo Wang and Li Na are already in a pair in this tournament."
    propose(open_tournament, c, d, before)
    with pytest.raises(RegistrationError) as waiting:
        propose(open_tournament, c, d, before)
    assert "between you and " + d.username + " is already waiting" in str(waiting.value)
    with pytest.raises(RegistrationError) as named:
        propose(open_tournament, d, c, before)
    assert "between you and Cy Young is already waiting" in str(named.value)


def test_a_second_confirmed_pair_for_a_player_is_refused_by_the_database(
    open_tournament, register_pairs, make_user, before
):
    """The model level, no service: pending pairs share players freely, a second
    confirmed pair's membership cannot be stored."""
    (pair,) = register_pairs(open_tournament, 1)
    other = make_user()
    for _ in range(2):  # pending proposals are only Pair rows: no constraint applies
        Pair.objects.create(tournament=open_tournament, player1=pair.player1, player2=other)
    second = Pair.objects.create(
        tournament=open_tournament,
        player1=other,
        player2=pair.player1,
        status="confirmed",
        confirmed_at=before,
        registration_no=2,
    )
    PairMember.objects.create(tournament=open_tournament, pair=second, user=other)
    with pytest.raises(IntegrityError), transaction.atomic():
        PairMember.objects.create(tournament=open_tournament, pair=second, user=pair.player1)


def test_a_cancelled_or_superseded_proposal_cannot_be_confirmed(open_tournament, make_user, before):
    a, b, c = make_user(), make_user(), make_user()
    cancelled = propose(open_tournament, a, b, before)
    registration.cancel_pair(pair=cancelled, user=a)
    superseded = propose(open_tournament, a, c, before)
    chosen = propose(open_tournament, b, c, before)
    registration.confirm_pair(pair=chosen, user=c, now=before)
    for stale, partner in ((cancelled, b), (superseded, c)):
        state = snapshot()
        with pytest.raises(RegistrationError, match="no longer open"):
            registration.confirm_pair(pair=stale, user=partner, now=before)
        with pytest.raises(RegistrationError, match="no longer open"):
            registration.cancel_pair(pair=stale, user=a)
        assert snapshot() == state


def test_pending_proposals_lapse_when_round_one_starts(
    open_tournament, register_pairs, make_user, t0
):
    a, b, c = make_user(), make_user(), make_user()
    waiting = [
        propose(open_tournament, a, b, t0 - timedelta(minutes=5)),
        propose(open_tournament, c, a, t0 - timedelta(minutes=5)),
    ]
    registered = register_pairs(open_tournament, 4)
    advance(now=t0)
    assert not Pair.objects.filter(pk__in=[p.pk for p in waiting]).exists()
    seated = set()
    for ns, ew in Table.objects.filter(round__tournament=open_tournament).values_list(
        "ns_pair_id", "ew_pair_id"
    ):
        seated |= {ns, ew}
    assert seated == {p.pk for p in registered}
    assert {p.pk for p in selectors.confirmed_pairs(open_tournament)} == seated
    state = snapshot()
    with pytest.raises(RegistrationError, match="lapsed when play started"):
        registration.confirm_pair(pair=waiting[0], user=b, now=t0 + timedelta(seconds=1))
    assert snapshot() == state


@pytest.mark.django_db(transaction=True)
def test_two_partners_confirming_the_same_player_at_once_register_one_pair(
    make_tournament, make_user, t0
):
    """a proposed to b and to c; both confirm at the same instant: one pair is
    registered, the other proposal is gone and its confirmation refused."""
    tournament = make_tournament()
    a, b, c = make_user(), make_user(), make_user()
    before = t0 - timedelta(hours=1)
    to_b, to_c = propose(tournament, a, b, before), propose(tournament, a, c, before)
    barrier = threading.Barrier(2)
    outcomes = {}

    def attempt(pair, partner):
        try:
            barrier.wait()
            registration.confirm_pair(pair=pair, user=partner, now=before)
            outcomes[partner.pk] = "ok"
        except RegistrationError as error:
            outcomes[partner.pk] = str(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=attempt, args=args) for args in ((to_b, b), (to_c, c))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(outcomes) == 2 and list(outcomes.values()).count("ok") == 1
    (refused,) = (o for o in outcomes.values() if o != "ok")
    assert "no longer open" in refused
    (pair,) = Pair.objects.filter(tournament=tournament)
    assert (pair.status, pair.registration_no) == ("confirmed", 1)
    assert PairMember.objects.filter(tournament=tournament).count() == 2


def test_the_migration_releases_players_held_by_pending_proposals(
    open_tournament, register_pairs, make_user, before
):
    """Before this change a proposal wrote both memberships; migration 0008 drops those
    of pending proposals and keeps the registered pairs' own."""
    from importlib import import_module

    from django.apps import apps

    migration = import_module("tournaments.migrations.0008_confirmed_pairs_hold_players")
    (registered,) = register_pairs(open_tournament, 1)
    a, b = make_user(), make_user()
    old_style = propose(open_tournament, a, b, before)
    PairMember.objects.bulk_create(
        PairMember(tournament=open_tournament, pair=old_style, user=u) for u in (a, b)
    )
    migration.release_pending_proposals(apps, None)
    assert set(PairMember.objects.values_list("pair_id", flat=True)) == {registered.pk}
    registration.confirm_pair(pair=old_style, user=b, now=before)
    assert PairMember.objects.filter(pair=old_style).count() == 2
