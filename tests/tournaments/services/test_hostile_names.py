"""Names that could break a page or an export are refused on every way in, with one
message (tournaments.validators): control characters, line breaks and characters that
reorder text. Right-to-left scripts, quotes and backslashes are ordinary names."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone, translation

from tests.support.api import assert_error, snapshot
from tournaments.forms import SignupForm
from tournaments.models import PlayerProfile, Tournament
from tournaments.services import setup
from tournaments.validators import printable, validate_description, validate_name

pytestmark = [pytest.mark.usefixtures("english")]
User = get_user_model()

CONTROL = "A name may not contain control characters or line breaks"
REORDER = "A name may not contain characters that change the direction of text"

# (name, the message's start, the code point it names)
BAD_NAMES = [
    ("Bell\x07", CONTROL, "U+0007"),
    ("\x1b[31mRed", CONTROL, "U+001B"),
    ("two\nlines", CONTROL, "U+000A"),
    ("tab\there", CONTROL, "U+0009"),
    ("del\x7f", CONTROL, "U+007F"),
    ("n\x85el", CONTROL, "U+0085"),
    ("line\u2028sep", CONTROL, "U+2028"),
    ("non\ufffechar", CONTROL, "U+FFFE"),
    ("Ann\u202eliB", REORDER, "U+202E"),
    ("\u202aembed", REORDER, "U+202A"),
    ("iso\u2066late\u2069", REORDER, "U+2066"),
    ("first\u2068strong", REORDER, "U+2068"),
    ("mark\u200f", REORDER, "U+200F"),
    ("arabic\u061cmark", REORDER, "U+061C"),
    # JSON can carry half a surrogate pair ("\ud800"); PostgreSQL could not store it.
    ("lone\ud800half", CONTROL, "U+D800"),
]
GOOD_NAMES = [
    "王力",
    "لاعب الجسر",  # Arabic
    "שחקן ברידג׳",  # Hebrew
    'Ann "Ace" O\'Neil',
    "back\\slash",
    "B&B <Bridge>",
    "Zoë 👩\u200d💻",  # a joiner inside an emoji is part of the name
]


@pytest.mark.parametrize(("name", "message", "char"), BAD_NAMES)
def test_the_validator_names_the_character(name, message, char):
    with pytest.raises(ValidationError) as raised:
        validate_name(name)
    assert raised.value.messages == [f"{message} ({char})."]


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_names_in_any_script_pass(name):
    validate_name(name)
    assert printable(name) == name


def test_a_description_keeps_its_lines_but_not_controls():
    validate_description("Line one\r\nLine two\twith a tab")
    with pytest.raises(ValidationError, match=r"U\+001B"):
        validate_description("colour \x1b[31m")
    with pytest.raises(ValidationError, match="direction of text"):
        validate_description("\u202eevil")


def test_the_message_is_translated():
    with translation.override("zh-hans"), pytest.raises(ValidationError) as raised:
        validate_name("a\u202eb")
    assert "U+202E" in raised.value.messages[0]
    assert "A name" not in raised.value.messages[0]


# --- every way in -------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "message", "char"), BAD_NAMES[::3])
def test_the_services_refuse(organiser, name, message, char):
    before = snapshot()
    with pytest.raises(setup.SetupError, match=message):
        setup.create_player(username="fine", display_name=name, by=organiser)
    with pytest.raises(setup.SetupError, match=message):
        setup.create_tournament(
            name=name,
            start_at=timezone.now() + timedelta(days=1),
            rounds=3,
            boards_per_round=2,
            round_minutes=20,
            by=organiser,
        )
    assert snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize("name", GOOD_NAMES)
def test_the_services_accept_good_names(organiser, name):
    user = setup.create_player(username=f"p{len(name)}", display_name=name, by=organiser)
    assert PlayerProfile.objects.get(user=user).display_name == name
    t = setup.create_tournament(
        name=name, start_at=timezone.now() + timedelta(days=1), rounds=3, boards_per_round=2,
        round_minutes=20, by=organiser,
    )  # fmt: skip
    assert t.name == name


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "message", "char"), BAD_NAMES)
def test_the_api_refuses_a_display_name(organiser_api, name, message, char):
    before = snapshot()
    response = organiser_api.post("/players", {"username": "fine", "display_name": name})
    assert_error(response, 400, f"{message} ({char})")
    assert snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["a\u202eb", "bell\x07", "tab\tname"])
def test_the_api_refuses_a_username(organiser_api, username):
    before = snapshot()
    assert_error(organiser_api.post("/players", {"username": username}), 400, "name")
    assert snapshot() == before


@pytest.mark.django_db
def test_the_api_refuses_a_tournament_name(organiser_api):
    before = snapshot()
    body = {
        "name": "Cup\u2067",
        "start_at": (timezone.now() + timedelta(days=1)).isoformat(),
        "rounds": 3,
        "boards_per_round": 2,
        "round_minutes": 20,
    }
    assert_error(organiser_api.post("/tournaments", body), 400, f"{REORDER} (U+2067)")
    assert snapshot() == before


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "message", "char"), BAD_NAMES[1::3])
def test_the_signup_page_refuses_a_display_name(client, name, message, char):
    form = {
        "username": "newcomer",
        "display_name": name,
        "password1": "a-long-enough-pass-123",
        "password2": "a-long-enough-pass-123",
    }
    response = client.post(reverse("signup"), form)
    assert response.status_code == 200
    assert response.context["form"].errors["display_name"] == [f"{message} ({char})."]
    assert not User.objects.filter(username="newcomer").exists()


@pytest.mark.django_db
def test_the_signup_form_refuses_a_reordering_username():
    form = SignupForm(
        {
            "username": "new\u202ecomer",
            "password1": "a-long-enough-pass-123",
            "password2": "a-long-enough-pass-123",
        }
    )
    assert not form.is_valid() and "username" in form.errors


@pytest.mark.django_db
def test_the_signup_page_takes_a_right_to_left_name(client):
    form = {
        "username": "newcomer",
        "display_name": "לאה כהן",
        "password1": "a-long-enough-pass-123",
        "password2": "a-long-enough-pass-123",
    }
    assert client.post(reverse("signup"), form).status_code == 302
    assert User.objects.get(username="newcomer").profile.display_name == "לאה כהן"


@pytest.fixture
def admin_client(client, organiser):
    client.force_login(organiser)
    return client


@pytest.mark.django_db
def test_the_admin_refuses_a_display_name(admin_client, make_user):
    user = make_user(name="Before")
    url = reverse("admin:tournaments_playerprofile_change", args=[user.profile.pk])
    response = admin_client.post(url, {"user": user.pk, "display_name": "After\u202e"})
    assert response.status_code == 200
    assert f"{REORDER} (U+202E)." in response.content.decode()
    assert PlayerProfile.objects.get(pk=user.profile.pk).display_name == "Before"


@pytest.mark.django_db
def test_the_model_refuses_names(make_user, make_tournament):
    profile = make_user(name="Fine").profile
    profile.display_name = "x\x1b"
    with pytest.raises(ValidationError) as raised:
        profile.full_clean()
    assert raised.value.message_dict["display_name"] == [f"{CONTROL} (U+001B)."]
    tournament = make_tournament(start_at=timezone.now() + timedelta(days=1))
    tournament.name = "\u202dCup"
    tournament.description = "ok\n\x07"
    with pytest.raises(ValidationError) as raised:
        tournament.full_clean()
    assert raised.value.message_dict["name"] == [f"{REORDER} (U+202D)."]
    assert "U+0007" in raised.value.message_dict["description"][0]
    assert Tournament.objects.get(pk=tournament.pk).name != "\u202dCup"
