"""A tournament's settings have one set of limits, whichever way they come in: the admin
form (the model's field validators and the setup service's `check_schedule`), the API
(the setup service) and the model's own full_clean."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from tests.support.api import assert_error, snapshot
from tournaments.models import Tournament
from tournaments.services import setup

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
ADD = reverse("admin:tournaments_tournament_add")

# What each way in refuses, and the words of its message.
TOO_MANY_ROUNDS = "The number of rounds must be a whole number from 1 to 50."
TOO_MANY_BOARDS = "The number of boards per round must be a whole number from 1 to 36."
ROUND_LENGTH = "The round length must be from 1 to 600 minutes."
GAP = "The gap between rounds must be from 0 to 1440 minutes."


@pytest.fixture
def admin_client(client, organiser):
    client.force_login(organiser)
    return client


def admin_form(client, url: str, **fields) -> dict:
    """A complete admin tournament form: the inlines' management forms as the page
    draws them, and good settings starting tomorrow, overridden by `fields`."""
    page = client.get(url)
    data = {}
    for inline in page.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management.initial.get(name, "")
    start = timezone.localtime(timezone.now() + timedelta(days=1))
    opens = timezone.localtime(timezone.now())
    data.update(
        {
            "name": "Winter Swiss",
            "description": "Two sessions.\r\nBring a partner.",
            "registration_opens_at_0": opens.strftime("%Y-%m-%d"),
            "registration_opens_at_1": opens.strftime("%H:%M:%S"),
            "start_at_0": start.strftime("%Y-%m-%d"),
            "start_at_1": start.strftime("%H:%M:%S"),
            "rounds": "7",
            "boards_per_round": "4",
            "round_length": "00:28:00",
            "gap_length": "00:02:00",
            "scoring_method": "IMP",
            "unplayed_policy": "not_played",
            "completion_threshold": "70",
            "first_round_draw": "registration",
            "_save": "Save",
        }
    )
    data.update(fields)
    return data


def test_the_admin_adds_a_good_tournament_through_the_setup_service(
    admin_client, organiser, monkeypatch
):
    created = []
    original = setup.create_tournament

    def watched(**kwargs):
        created.append(original(**kwargs))
        return created[-1]

    monkeypatch.setattr(setup, "create_tournament", watched)
    form = admin_form(admin_client, ADD, neuberg="on", first_round_draw="random")
    response = admin_client.post(ADD, form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    t = Tournament.objects.get()
    assert created == [t] and t.created_by == organiser
    assert (t.rounds, t.round_length, t.gap_length) == (7, timedelta(minutes=28), timedelta(0, 120))
    assert (t.description, t.neuberg, t.first_round_draw) == (
        "Two sessions.\r\nBring a partner.",
        True,
        "random",
    )
    assert response.url == reverse("admin:tournaments_tournament_changelist")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"rounds": "30000"}, TOO_MANY_ROUNDS),
        ({"rounds": "0"}, TOO_MANY_ROUNDS),
        ({"boards_per_round": "37"}, TOO_MANY_BOARDS),
        ({"round_length": "00:00:01"}, ROUND_LENGTH),
        ({"round_length": "10:00:01"}, ROUND_LENGTH),
        ({"gap_length": "-00:05:00"}, GAP),
        ({"gap_length": "2 00:00:00"}, GAP),
        ({"completion_threshold": "0.7"}, "write 70 for 70 %, not 0.7"),
        ({"name": "Winter\x07Swiss"}, "control characters"),
        ({"description": "\u202eesrever"}, "direction of text"),
        ({"start_at_0": "2001-01-01"}, "The start time is in the past."),
        ({"registration_opens_at_0": "2999-01-01"}, "Registration must open before"),
    ],
)
def test_the_admin_refuses_what_the_api_refuses(admin_client, fields, message):
    response = admin_client.post(ADD, admin_form(admin_client, ADD, **fields))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_admin_refuses_a_bad_change_and_keeps_the_stored_settings(
    admin_client, make_tournament
):
    t = make_tournament(
        start_at=timezone.now() + timedelta(days=1),
        registration_opens_at=timezone.now() - timedelta(days=1),
    )
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    for fields, message in [
        ({"gap_length": "-00:05:00"}, GAP),
        ({"rounds": "30000"}, TOO_MANY_ROUNDS),
        ({"round_length": "00:00:01"}, ROUND_LENGTH),
    ]:
        response = admin_client.post(url, admin_form(admin_client, url, **fields))
        assert response.status_code == 200 and message in response.content.decode()
    stored = Tournament.objects.get(pk=t.pk)
    assert (stored.rounds, stored.round_length, stored.gap_length) == (
        t.rounds,
        t.round_length,
        t.gap_length,
    )


def test_an_edit_that_leaves_the_dates_alone_is_not_refused_for_them(admin_client, make_tournament):
    # Stored long ago: the start is in the past now, and that is no reason to refuse
    # a new description.
    # Both dates from the real clock (not T0's), so the two stay a day apart in any year.
    t = make_tournament(
        start_at=timezone.now() - timedelta(hours=2),
        registration_opens_at=timezone.now() - timedelta(days=1, hours=2),
    )
    url = reverse("admin:tournaments_tournament_change", args=[t.pk])
    start = timezone.localtime(t.start_at)
    opens = timezone.localtime(t.registration_opens_at)
    form = admin_form(
        admin_client,
        url,
        description="New words",
        rounds=str(t.rounds),
        boards_per_round=str(t.boards_per_round),
        round_length="00:20:00",
        gap_length="00:00:00",
        start_at_0=start.strftime("%Y-%m-%d"),
        start_at_1=start.strftime("%H:%M:%S"),
        registration_opens_at_0=opens.strftime("%Y-%m-%d"),
        registration_opens_at_1=opens.strftime("%H:%M:%S"),
    )
    response = admin_client.post(url, form)
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert Tournament.objects.get(pk=t.pk).description == "New words"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rounds": 30000}, TOO_MANY_ROUNDS),
        ({"rounds": 2.5}, TOO_MANY_ROUNDS),
        ({"round_minutes": 1 / 60}, ROUND_LENGTH),
        ({"round_minutes": 1e300}, ROUND_LENGTH),
        ({"gap_minutes": -1}, GAP),
        ({"gap_minutes": -1e300}, GAP),
    ],
)
def test_the_api_refuses_them_too(organiser_api, organiser, overrides, message):
    body = {
        "name": "Swiss",
        "start_at": (timezone.now() + timedelta(days=1)).isoformat(),
        "rounds": 5,
        "boards_per_round": 4,
        "round_minutes": 28,
        **overrides,
    }
    before = snapshot()
    status = 422 if overrides.get("rounds") == 2.5 else 400
    assert_error(organiser_api.post("/tournaments", body), status)
    assert snapshot() == before
    if status == 400:
        with pytest.raises(setup.SetupError, match=message.replace(".", r"\.")):
            setup.create_tournament(
                **{**body, "start_at": timezone.now() + timedelta(days=1)}, by=organiser
            )


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"rounds": 30000}, "rounds", TOO_MANY_ROUNDS),
        ({"boards_per_round": 40}, "boards_per_round", TOO_MANY_BOARDS),
        ({"round_length": timedelta(seconds=1)}, "round_length", ROUND_LENGTH),
        ({"gap_length": timedelta(minutes=-5)}, "gap_length", GAP),
    ],
)
def test_the_model_refuses_them_too(make_tournament, fields, field, message):
    t = make_tournament(start_at=timezone.now() + timedelta(days=1))
    for name, value in fields.items():
        setattr(t, name, value)
    with pytest.raises(ValidationError) as raised:
        t.full_clean()
    assert raised.value.message_dict[field] == [message]


def test_the_limits_have_one_home():
    from tournaments import validators

    assert setup.MAX_ROUNDS is validators.MAX_ROUNDS
    assert setup.MAX_ROUND_MINUTES is validators.MAX_ROUND_MINUTES
    field = Tournament._meta.get_field("rounds")
    assert validators.validate_rounds in field.validators
