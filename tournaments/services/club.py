"""The club (RULES 13): weeks and their libraries, the lobby, and the tables that play
library deals one after another on the play server.

A week has a field per system (`ClubField`), each a `Tournament` of the club's format:
a table's sitting is a round of it with one `Table` (the two partnerships its `Pair`s),
and each board the table plays is a `Board` of that round pointing at its library deal.
So the play server, the table page, the history and who-sees-what serve the club as
they serve every event; what is the club's own is here: who sits where, which deal a
table is given, and (`club_scoring`) how a result scores against the deal's field.

Locks, in the order they are taken: the club table's row (sitting, leaving, starting,
dealing at one table in turn), then a library deal's row (`given` and `results` move
under it). A person sits at one open table at a time and is given a deal at most once:
both are unique keys in the database, so two requests at once cannot break either.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import F, Max
from django.utils import timezone, translation
from django.utils.translation import gettext as _

import scoring

from .. import permissions
from ..deals import generate_deal
from ..errors import NotAllowed, NotFound, ServiceError
from ..models import (
    Board,
    ClubDeal,
    ClubDealSeen,
    ClubField,
    ClubPenalty,
    ClubSeat,
    ClubSystem,
    ClubTable,
    ClubTableStatus,
    ClubWaiting,
    ClubWeek,
    Pair,
    PairStatus,
    PlayerProfile,
    PlayMode,
    Round,
    RoundStatus,
    ScoringMethod,
    Seating,
    Table,
    Tournament,
    TournamentStatus,
)
from .permissions import require

SEATS = ("N", "E", "S", "W")
# RULES 13: a deal is given to at most 40 tables (its 40th result retires it; a table
# given it can only add a result if it was given it, so 40 givings bound the results).
MOST_RESULTS = 40
# A library grows by this many deals when a table's players have seen all the others.
LIBRARY_CHUNK = 64
# The robot players: one per seat, each only ever sitting in its own (so a table never
# has one user in two seats). Their results count for the field; they have no week.
ROBOT_USERNAME = "club-robot-{seat}"
ROBOT_NAMES = {"N": "Robot North", "E": "Robot East", "S": "Robot South", "W": "Robot West"}


class ClubRefused(ServiceError):
    """A lobby action the club's rules refuse (nothing changed)."""


def week_start(moment: datetime) -> datetime:
    """Monday 00:00 of `moment`'s week in the site's time zone (RULES 13)."""
    local = timezone.localtime(moment)
    monday = local.date() - timedelta(days=local.weekday())
    return timezone.make_aware(datetime.combine(monday, time.min), local.tzinfo)


def _week_end(start: datetime) -> datetime:
    # A week is seven calendar days in the site's zone (23 or 25 hours a day at a change).
    local = timezone.localtime(start)
    following = local.date() + timedelta(days=7)
    return timezone.make_aware(datetime.combine(following, time.min), local.tzinfo)


def _system_name(system: str) -> str:
    return str(ClubSystem(system).label)


def _event_name(week: ClubWeek, system: str) -> str:
    # The week's events are the club's own (no page lists them): named in English, not
    # in the language of whoever happened to open the week.
    label = timezone.localtime(week.starts_at).strftime("%Y-%m-%d")
    with translation.override("en"):
        return f"Club {label} · {_system_name(system)}"[:200]


def current_week(*, now: datetime) -> ClubWeek:
    """The week `now` is in, with its four fields, made the first time it is asked for
    (two requests at once make it once: the week's start is unique)."""
    start = week_start(now)
    week = ClubWeek.objects.filter(starts_at=start).first()
    if week is None or week.fields.count() < len(ClubSystem):
        week = _make_week(start=start, now=now)
    return week


def _make_week(*, start: datetime, now: datetime) -> ClubWeek:
    try:
        with transaction.atomic():
            week, _created = ClubWeek.objects.get_or_create(
                starts_at=start, defaults={"ends_at": _week_end(start)}
            )
            have = set(week.fields.values_list("system", flat=True))
            for system in ClubSystem.values:
                if system not in have:
                    _make_field(week=week, system=system, now=now)
    except IntegrityError:
        pass  # another request made it first: read theirs
    return ClubWeek.objects.get(starts_at=start)


def _make_field(*, week: ClubWeek, system: str, now: datetime) -> ClubField:
    tournament = Tournament.objects.create(
        name=_event_name(week, system),
        start_at=week.starts_at,
        registration_opens_at=week.starts_at,
        rounds=1,
        boards_per_round=1,
        round_length=week.ends_at - week.starts_at,
        gap_length=timedelta(0),
        scoring_method=(
            ScoringMethod.MP if system == ClubSystem.FULL_FIELD_MP else ScoringMethod.XIMP
        ),
        seating=Seating.CLUB,
        status=TournamentStatus.RUNNING,
        play=PlayMode.ONLINE,
        kibitz_live=False,
    )
    field = ClubField.objects.create(week=week, system=system, tournament=tournament)
    extend_library(field=field)
    return field


def extend_library(*, field: ClubField) -> None:
    """LIBRARY_CHUNK more deals at the end of the library's order, drawn from the
    CSPRNG; two tables growing it at once add one chunk (the numbers are unique)."""
    last = field.deals.aggregate(last=Max("number"))["last"] or 0
    rows = [
        ClubDeal(
            field=field,
            number=number,
            dealer=scoring.board_dealer(number),
            vulnerability=scoring.board_vulnerability(number),
            deal=generate_deal(),
        )
        for number in range(last + 1, last + 1 + LIBRARY_CHUNK)
    ]
    ClubDeal.objects.bulk_create(rows, ignore_conflicts=True)


def field_of(*, week: ClubWeek, system: str) -> ClubField:
    if system not in ClubSystem.values:
        raise ClubRefused(_("Choose duplicate, full field (IMPs or MP) or handicap."))
    return ClubField.objects.select_related("tournament", "week").get(week=week, system=system)


def is_member(user) -> bool:
    return bool(getattr(user, "is_active", False) and user.has_perm(permissions.CLUB_MEMBER))


def may_play(user, system: str) -> bool:
    """RULES 13: handicap tables are everyone's; the other systems are the members'."""
    return system == ClubSystem.HANDICAP or is_member(user)


def _check_player(user, field: ClubField, now: datetime) -> None:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        raise NotAllowed(_("Log in to play at the club."))
    if not may_play(user, field.system):
        raise NotAllowed(
            _("%(system)s tables are for club members; handicap tables are open to everyone.")
            % {"system": _system_name(field.system)}
        )
    if field.week.closed_at is not None or now >= field.week.ends_at:
        raise ClubRefused(_("This club week has closed: play at this week's tables."))


def lock_table(club_table_id: int) -> ClubTable:
    table = (
        # Only the table's row (`of`): FOR UPDATE through the joins would lock the week's
        # field, week and event rows too, so every club table's write would queue on
        # them (and deadlock against the rows' FOR KEY SHARE of a result's inserts).
        ClubTable.objects.select_for_update(no_key=True, of=("self",))
        .select_related("field__week", "field__tournament")
        .filter(pk=club_table_id)
        .first()
    )
    if table is None:
        raise NotFound(_("There is no such club table."))
    return table


def _seated(table: ClubTable) -> dict[str, ClubSeat]:
    return {s.seat: s for s in table.seats.filter(active=True).select_related("user")}


def _take_seat(*, table: ClubTable, seat: str, user, robot: bool, now: datetime) -> None:
    try:
        with transaction.atomic():
            ClubSeat.objects.create(club_table=table, seat=seat, user=user, robot=robot, sat_at=now)
    except IntegrityError:
        raise ClubRefused(
            _("You already sit at another club table: leave it first.")
            if not robot
            else _("Seat %(s)s is taken.") % {"s": seat}
        ) from None
    ClubWaiting.objects.filter(user=user).delete()


def open_table(*, user, system: str, seat: str = "S", now: datetime | None = None) -> ClubTable:
    """A new table of `system` this week with `user` in `seat`; waiting players of the
    system fill its other seats at once."""
    now = now or timezone.now()
    if seat not in SEATS:
        raise ClubRefused(_("A seat is N, E, S or W."))
    field = field_of(week=current_week(now=now), system=system)
    _check_player(user, field, now)
    with transaction.atomic():
        table = ClubTable.objects.create(field=field, opened_by=user, opened_at=now)
        _take_seat(table=table, seat=seat, user=user, robot=False, now=now)
        _fill_from_waiting(table=table, now=now)
    return table


def sit(*, user, club_table_id: int, seat: str, now: datetime | None = None) -> ClubTable:
    """`user` takes the empty `seat` at a forming table (a partner takes the seat
    opposite); the fourth player starts the table."""
    now = now or timezone.now()
    if seat not in SEATS:
        raise ClubRefused(_("A seat is N, E, S or W."))
    with transaction.atomic():
        table = lock_table(club_table_id)
        _check_player(user, table.field, now)
        if table.status != ClubTableStatus.FORMING:
            raise ClubRefused(_("This table is no longer taking players."))
        seated = _seated(table)
        if seat in seated:
            raise ClubRefused(_("Seat %(s)s is taken.") % {"s": seat})
        _take_seat(table=table, seat=seat, user=user, robot=False, now=now)
        _start_if_full(table=table, now=now)
    return table


def wait(*, user, system: str, now: datetime | None = None) -> ClubTable | None:
    """`user` waits for a table of `system`: seated at once at the oldest forming table
    with room, else waiting until one opens. Answers the table they were seated at."""
    now = now or timezone.now()
    field = field_of(week=current_week(now=now), system=system)
    _check_player(user, field, now)
    if ClubSeat.objects.filter(user=user, active=True, robot=False).exists():
        raise ClubRefused(_("You already sit at a club table: leave it first."))
    with transaction.atomic():
        ClubWaiting.objects.update_or_create(user=user, defaults={"field": field, "since": now})
        for candidate in ClubTable.objects.filter(
            field=field, status=ClubTableStatus.FORMING
        ).order_by("opened_at", "id")[:20]:
            table = lock_table(candidate.pk)
            if table.status != ClubTableStatus.FORMING:
                continue
            free = [s for s in SEATS if s not in _seated(table)]
            if free:
                _take_seat(table=table, seat=free[0], user=user, robot=False, now=now)
                _start_if_full(table=table, now=now)
                return table
    return None


def stop_waiting(*, user) -> None:
    ClubWaiting.objects.filter(user=user).delete()


def _fill_from_waiting(*, table: ClubTable, now: datetime) -> None:
    seated = _seated(table)
    free = [s for s in SEATS if s not in seated]
    waiting = list(
        ClubWaiting.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(field=table.field)
        .exclude(user_id__in=[s.user_id for s in seated.values()])
        .select_related("user")
        .order_by("since", "id")[: len(free)]
    )
    for seat, waiter in zip(free, waiting, strict=False):
        _take_seat(table=table, seat=seat, user=waiter.user, robot=False, now=now)
    _start_if_full(table=table, now=now)


def robot_user(seat: str):
    """The robot player of `seat` (made the first time it is needed)."""
    users = get_user_model()
    robot, created = users.objects.get_or_create(username=ROBOT_USERNAME.format(seat=seat.lower()))
    if created:
        robot.set_unusable_password()
        robot.save(update_fields=["password"])
        PlayerProfile.objects.get_or_create(
            user=robot, defaults={"display_name": ROBOT_NAMES[seat]}
        )
    return robot


def robot_user_ids() -> set[int]:
    users = get_user_model()
    names = [ROBOT_USERNAME.format(seat=s.lower()) for s in SEATS]
    return set(users.objects.filter(username__in=names).values_list("pk", flat=True))


def add_robots(*, user, club_table_id: int, now: datetime | None = None) -> ClubTable:
    """A seated player asks robots to take the table's empty seats (RULES 13): the table
    starts."""
    now = now or timezone.now()
    robots = {seat: robot_user(seat) for seat in SEATS}
    with transaction.atomic():
        table = lock_table(club_table_id)
        seated = _seated(table)
        if not any(s.user_id == user.pk and not s.robot for s in seated.values()):
            raise NotAllowed(_("Only a player at this table may ask for robots."))
        if table.status != ClubTableStatus.FORMING:
            raise ClubRefused(_("This table is no longer taking players."))
        for seat in SEATS:
            if seat not in seated:
                _take_seat(table=table, seat=seat, user=robots[seat], robot=True, now=now)
        _start_if_full(table=table, now=now)
    return table


def leave(*, user, club_table_id: int, now: datetime | None = None) -> ClubTable:
    """`user` leaves, free at once to sit elsewhere. A forming table frees the seat (and
    closes when nobody is left). A playing table between boards closes. Mid-board (an
    action stored on the board) the leaver is counted as disconnected
    (`club_scoring.count_leaving`): a robot finishes the board in their seat, so the
    other three keep what they played, and the table closes when the board is over
    (`closes_after_board`); with no other person at the table it closes at once."""
    now = now or timezone.now()
    with transaction.atomic():
        table = lock_table(club_table_id)
        seated = _seated(table)
        mine = [s for s in seated.values() if s.user_id == user.pk and not s.robot]
        if not mine:
            raise ClubRefused(_("You do not sit at this table."))
        if table.status == ClubTableStatus.FORMING:
            ClubSeat.objects.filter(pk=mine[0].pk).update(active=False)
            if all(s.robot for s in seated.values() if s.pk != mine[0].pk):
                close_table(table=table, now=now)
        elif table.status == ClubTableStatus.PLAYING:
            from . import club_scoring  # club_scoring reads the seats this module writes

            club_scoring.count_leaving(club_table=table, seat=mine[0].seat, user=user, now=now)
            # The open penalty is what the robots' runner stands in for (`robots.club`).
            stood_in = ClubPenalty.objects.filter(
                club_table=table, user=user, back_at__isnull=True
            ).exists()
            others = [s for s in seated.values() if s.pk != mine[0].pk and not s.robot]
            if stood_in and others:
                ClubSeat.objects.filter(pk=mine[0].pk).update(active=False)
                ClubTable.objects.filter(pk=table.pk).update(closes_after_board=True)
                table.closes_after_board = True
            else:
                close_table(table=table, now=now)
    return table


def close_table(*, table: ClubTable, now: datetime) -> None:
    """The table's sitting is over: every seat freed, no board dealt again."""
    table.seats.filter(active=True).update(active=False)
    ClubTable.objects.filter(pk=table.pk).update(status=ClubTableStatus.CLOSED, closed_at=now)
    table.status = ClubTableStatus.CLOSED


def _start_if_full(*, table: ClubTable, now: datetime) -> None:
    seated = _seated(table)
    if table.status != ClubTableStatus.FORMING or len(seated) < len(SEATS):
        return
    if all(s.robot for s in seated.values()):
        return  # robots alone never start a table
    tournament = table.field.tournament
    # The sitting is a round of the week's event: numbered under the field's row lock.
    _lock_field(table.field_id)
    number = (Round.objects.filter(tournament=tournament).aggregate(n=Max("number"))["n"] or 0) + 1
    round = Round.objects.create(
        tournament=tournament,
        number=number,
        status=RoundStatus.OPEN,
        starts_at=now,
        ends_at=table.field.week.ends_at,
    )
    registration = (
        Pair.objects.filter(tournament=tournament).aggregate(n=Max("registration_no"))["n"] or 0
    )
    # The two partnerships, player 1 North and East (`table_seats`' order).
    ns, ew = (
        Pair.objects.create(
            tournament=tournament,
            player1=seated[first].user,
            player2=seated[second].user,
            status=PairStatus.CONFIRMED,
            confirmed_at=now,
            registration_no=registration + k,
        )
        for k, (first, second) in enumerate((("N", "S"), ("E", "W")), start=1)
    )
    play_table = Table.objects.create(round=round, number=1, ns_pair=ns, ew_pair=ew)
    ClubTable.objects.filter(pk=table.pk).update(
        status=ClubTableStatus.PLAYING, started_at=now, table=play_table
    )
    table.status, table.table = ClubTableStatus.PLAYING, play_table
    deal_next_board(club_table=table, now=now)


def deal_next_board(*, club_table: ClubTable, now: datetime) -> Board | None:
    """The table's next board: the first library deal in order that none of its people
    has been given and that is not full (RULES 13), made a `Board` of the table's round.
    Run under the club table's lock (one deal at a time per table); across tables the
    unique (player, deal) key and the deal's `given` counter decide."""
    assert club_table.table is not None
    field = club_table.field
    seated = _seated(club_table)
    people = [s.user_id for s in seated.values() if not s.robot]
    for _attempt in range(4):
        deal = give_deal(field=field, people=people, now=now)
        if deal is not None:
            break
        extend_library(field=field)
    else:  # pragma: no cover - four chunks seen by one table in one request
        raise ClubRefused(_("The library has no deal left for this table."))
    number = _next_board_number(field=field)
    return Board.objects.create(
        tournament_id=field.tournament_id,
        round_id=club_table.table.round_id,
        number=number,
        dealer=deal.dealer,
        vulnerability=deal.vulnerability,
        deal=deal.deal,
        club_deal=deal,
    )


def _lock_field(field_id: int) -> None:
    """The field's row lock that numbers its rounds and boards: FOR NO KEY UPDATE of that
    row alone (its default ordering would join the week and lock it too), so the FOR
    KEY SHARE that another table's result takes on it (its scores' foreign key) neither
    blocks it nor deadlocks with it."""
    list(
        ClubField.objects.select_for_update(no_key=True)
        .filter(pk=field_id)
        .order_by()
        .values_list("pk", flat=True)
    )


def _next_board_number(*, field: ClubField) -> int:
    # The field's row lock orders the board numbers of the week's event.
    _lock_field(field.pk)
    last = Board.objects.filter(tournament_id=field.tournament_id).aggregate(n=Max("number"))["n"]
    return (last or 0) + 1


def give_deal(*, field: ClubField, people: list[int], now: datetime) -> ClubDeal | None:
    """Take the first deal in library order none of `people` was given and that is not
    full: its `given` counter is raised (at most 40) and each person's seen row written in
    a savepoint, so a deal another table took meanwhile (the counter full, or a person's
    row already there) is passed over, never given twice."""
    seen = ClubDealSeen.objects.filter(user_id__in=people, deal__field=field).values("deal_id")
    candidates = (
        ClubDeal.objects.filter(field=field, retired_at__isnull=True, given__lt=MOST_RESULTS)
        .exclude(pk__in=seen)
        .order_by("number")
        .values_list("pk", flat=True)
    )
    for batch in _batches(candidates):
        for deal_id in batch:
            try:
                with transaction.atomic():
                    # A deal another table holds (scoring its result, or being given it)
                    # is passed over, not waited for: a table scoring deal A while
                    # dealing deal B, and another the other way round, must not deadlock.
                    free = (
                        # Only the deal's row (no ordering's join to the field and
                        # week, which would lock them and make every other deal look
                        # taken to a table dealing at the same moment).
                        ClubDeal.objects.select_for_update(skip_locked=True, no_key=True)
                        .filter(pk=deal_id, retired_at__isnull=True, given__lt=MOST_RESULTS)
                        .order_by()
                        .values_list("pk", flat=True)
                    )
                    if not list(free):
                        continue
                    ClubDeal.objects.filter(pk=deal_id).update(given=F("given") + 1)
                    ClubDealSeen.objects.bulk_create(
                        [ClubDealSeen(deal_id=deal_id, user_id=u, seen_at=now) for u in people]
                    )
            except IntegrityError:
                continue  # a person at this table was just given it at another table
            return ClubDeal.objects.get(pk=deal_id)
    return None


def _batches(candidates, size: int = 16):
    # A few at a time: a table usually takes the first.
    start = 0
    while True:
        batch = list(candidates[start : start + size])
        if not batch:
            return
        yield batch
        start += size


def unfinished_board(play_table: Table) -> Board | None:
    return (
        Board.objects.filter(round_id=play_table.round_id)
        .exclude(results__table=play_table)
        .order_by("number")
        .first()
    )


def grant_membership(*, by, user, member: bool = True) -> None:
    """An organiser grants (or withdraws) club membership (RULES 13)."""
    require(by, permissions.GRANT_CLUB_MEMBERSHIP)
    from django.contrib.auth.models import Permission

    permission = Permission.objects.get(
        content_type__app_label=permissions.APP, codename=permissions.CLUB_MEMBER_CODENAME
    )
    if member:
        user.user_permissions.add(permission)
    else:
        user.user_permissions.remove(permission)
    # The user's cached permissions are stale now.
    for cache in ("_perm_cache", "_user_perm_cache"):
        if hasattr(user, cache):
            delattr(user, cache)


__all__ = [
    "ClubRefused",
    "add_robots",
    "current_week",
    "deal_next_board",
    "grant_membership",
    "leave",
    "open_table",
    "sit",
    "wait",
    "week_start",
]
