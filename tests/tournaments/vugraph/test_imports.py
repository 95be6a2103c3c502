"""LIN files imported as finished matches (RULES 12): BBO's real files through the service
(lenient marks the bad rooms and scores what both rooms completed; strict refuses the
file at its first bad room and stores nothing); every refusal (who, too big, not LIN,
empty) a clear message that changes nothing, through the service, the page and the API;
an imported match drawn in the broadcast's shape."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.test import RequestFactory
from django.utils import timezone, translation

import vugraph
from tests.support.api import assert_error, token_for
from tests.support.samples import LIN_SAMPLES
from tournaments.errors import PermissionRequired, ServiceError
from tournaments.models import ImportedMatch
from tournaments.selectors import imported_matches
from tournaments.services.vugraph_import import MAX_LIN_BYTES, import_lin_file
from tournaments.views import vugraph as views

pytestmark = pytest.mark.django_db

SAMPLES = sorted(LIN_SAMPLES.glob("*.lin"))
needs_samples = pytest.mark.skipif(not SAMPLES, reason="no LIN samples beside the repository")


def _bytes(name: str) -> bytes:
    return (LIN_SAMPLES / name).read_bytes()


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.fixture
def staff_only(make_user):
    user = make_user("staff-only")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    return user


def _snapshot(item):
    return imported_matches.snapshot(item=item, now=timezone.now())


@needs_samples
def test_lenient_imports_001_00100_with_o12_marked_and_the_cores_score(director):
    data = _bytes("001_00100.lin")
    item = import_lin_file(by=director, data=data, policy="lenient", title="Olympiad R13")
    core = vugraph.replay_match(vugraph.read_lin_bytes(data))
    assert item.title == "Olympiad R13" and item.policy == "lenient"
    assert item.imported_by == director and item.text == data.decode("utf-8")
    assert item.outcome["imps"] == list(core.imps) == [29, 23]
    assert [Decimal(s) for s in item.outcome["score"]] == list(core.score)
    assert item.outcome["refused"] == 1
    board_12 = next(b for b in item.outcome["boards"] if b["number"] == 12)
    assert board_12["imps"] is None
    assert not board_12["rooms"]["open"]["accepted"]
    assert board_12["rooms"]["open"]["kind"] == "illegal_card"
    assert "H8 from E's hand" in board_12["rooms"]["open"]["reason"]
    assert board_12["rooms"]["closed"]["accepted"]

    shown = _snapshot(item)
    assert shown["score"]["home"] == 29 and shown["score"]["away"] == 23
    assert shown["teams"] == {"home": item.home_team, "away": item.away_team, "carry_over": 0}
    assert shown["comments"] == [] and all(line["released"] for line in shown["boards"])
    line = next(line for line in shown["boards"] if line["number"] == 12)
    refused = line["rooms"]["open"]
    assert refused["refused"]["kind"] == "illegal_card" and refused["stored_result"] is None
    assert refused["auction"] and refused["play"] == []  # legal up to the wrong-hand lead
    assert line["rooms"]["closed"]["stored_result"]["ns_score"] is not None
    assert line["imps"] is None


@needs_samples
def test_strict_refuses_001_00100_at_board_12_open_room_and_stores_nothing(director):
    with pytest.raises(ServiceError) as refused:
        import_lin_file(by=director, data=_bytes("001_00100.lin"), policy="strict")
    message = str(refused.value)
    assert message.startswith("Board 12, open room: a card the rules of play refuse")
    assert "H8 from E's hand" in message
    assert ImportedMatch.objects.count() == 0
    with translation.override("zh-hans"), pytest.raises(ServiceError) as refused:
        import_lin_file(by=director, data=_bytes("001_00100.lin"), policy="strict")
    assert str(refused.value).startswith("第 12 副牌，开室：")


@needs_samples
@pytest.mark.parametrize("name", [path.name for path in SAMPLES])
def test_every_real_file_imports_leniently_with_the_cores_score(name, director):
    data = _bytes(name)
    item = import_lin_file(by=director, data=data, policy="lenient")
    core = vugraph.replay_match(vugraph.read_lin_bytes(data))
    assert [Decimal(s) for s in item.outcome["score"]] == list(core.score)
    assert (item.home_carry_over, item.away_carry_over) == core.match.carry_over
    assert item.outcome["refused"] == len(core.problems)
    shown = _snapshot(item)
    assert [line["number"] for line in shown["boards"]] == [b.number for b in core.boards]
    assert (Decimal(str(shown["score"]["home"])), Decimal(str(shown["score"]["away"]))) == (
        core.score
    )
    # Read again from the kept text: the same match.
    assert vugraph.read_lin(item.text) == core.match


@needs_samples
def test_a_clean_file_imports_strictly(director):
    item = import_lin_file(by=director, data=_bytes("020_02000.lin"), policy="strict")
    assert item.outcome["refused"] == 0 and item.outcome["score"] == ["94", "102"]


# --- refusals ---------------------------------------------------------------------------

LIN = (
    b"vg|Test,1,I,1,1,Home,0,Away,0|rs|,|pn|a,b,c,d,e,f,g,h|\n"
    b"qx|o1|md|3SAKQJHAKQJDAKQJCA,S5432H5432D5432C2,ST9876HT9876DT9C3,|sv|o|"
    b"mb|7N|mb|p|mb|p|mb|p|pc|CK|mc|13|\n"
    b"qx|c1|md|3SAKQJHAKQJDAKQJCA,S5432H5432D5432C2,ST9876HT9876DT9C3,|sv|o|"
    b"mb|7N|mb|p|mb|p|mb|p|pc|CK|mc|13|\n"
)


def test_a_small_file_imports(director):
    item = import_lin_file(by=director, data=LIN, policy="strict")
    assert item.outcome["imps"] == [0, 0] and item.outcome["refused"] == 0


@pytest.mark.parametrize(
    ("data", "policy", "fragment"),
    [
        (b"", "lenient", "The file is empty."),
        (b"  \n\n", "lenient", "The file is empty."),
        (b"x" * (MAX_LIN_BYTES + 1), "lenient", "at most 2 MB"),
        (b"hello, this is a letter", "lenient", "not a vugraph LIN file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "lenient", "not a LIN text file"),
        (LIN.replace(b"Home", b"Ho\xe2\x80\xaeme"), "lenient", "direction of text"),
        (b"vg|Test,1,I,1,1,Home,0,Away,0|rs||pn||", "lenient", "no board"),
        (LIN, "sloppy", "strict or lenient"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(director, data, policy, fragment):
    with pytest.raises(ServiceError, match=fragment):
        import_lin_file(by=director, data=data, policy=policy)
    assert ImportedMatch.objects.count() == 0


def test_only_an_organiser_imports(make_user, staff_only, director):
    player = make_user("player")
    for who in (player, staff_only, None):
        with pytest.raises(PermissionRequired, match="Only a tournament director"):
            import_lin_file(by=who, data=LIN, policy="lenient")
    assert ImportedMatch.objects.count() == 0
    staff_only.user_permissions.add(Permission.objects.get(codename="add_tournament"))
    staff_only = type(staff_only).objects.get(pk=staff_only.pk)
    assert import_lin_file(by=staff_only, data=LIN, policy="lenient").pk


# --- the API and the pages --------------------------------------------------------------


def _post(client, token, data: bytes, **fields):
    from django.core.files.uploadedfile import SimpleUploadedFile

    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    body = {"file": SimpleUploadedFile("match.lin", data, "text/plain"), **fields}
    return client.post("/api/v1/vugraph/imports", body, **headers)


def test_the_api_imports_and_reads_back(client, director):
    made = _post(client, token_for(director), LIN, policy="strict", title="Grand slam")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["title"] == "Grand slam" and body["teams"] == ["Home", "Away"]
    assert body["score"] == [0.0, 0.0] and body["refused"] == 0
    assert body["imported_by"] == "director"
    got = client.get(f"/api/v1/vugraph/imports/{body['id']}")
    assert got.status_code == 200
    assert got.json()["boards"] == body["boards"]
    assert body["boards"][0]["rooms"]["open"]["result"]["ns_score"] == 1520
    assert_error(client.get("/api/v1/vugraph/imports/987654"), 404, "No such imported match")


@needs_samples
def test_the_api_refuses_as_the_service_does_and_stores_nothing(
    client, make_user, staff_only, director
):
    player = make_user("player")
    assert_error(_post(client, None, LIN), 401)
    assert_error(_post(client, token_for(player), LIN), 403, "Only an organiser")
    assert_error(_post(client, token_for(staff_only), LIN), 403, "Only a tournament director")
    token = token_for(director)
    assert_error(_post(client, token, b""), 400, "empty")
    assert_error(_post(client, token, b"x" * (MAX_LIN_BYTES + 10)), 400, "at most 2 MB")
    assert_error(_post(client, token, b"not lin at all"), 400, "not a vugraph LIN file")
    assert_error(
        _post(client, token, _bytes("001_00100.lin"), policy="strict"),
        400,
        "Board 12, open room",
    )
    assert ImportedMatch.objects.count() == 0
    made = _post(client, token, _bytes("001_00100.lin"), policy="lenient")
    assert made.status_code == 201 and made.json()["refused"] == 1


def test_the_upload_page_is_the_organisers(client, make_user, staff_only, director):
    from django.core.files.uploadedfile import SimpleUploadedFile

    assert client.get("/vugraph/import/").status_code == 302  # log in first
    client.force_login(make_user("player"))
    assert client.get("/vugraph/import/").status_code == 403
    client.force_login(staff_only)
    refused = client.post(
        "/vugraph/import/",
        {"file": SimpleUploadedFile("m.lin", LIN), "policy": "lenient"},
    )
    assert refused.status_code == 200 and b"Only a tournament director" in refused.content
    assert ImportedMatch.objects.count() == 0
    client.force_login(director)
    page = client.get("/vugraph/import/")
    assert page.status_code == 200 and b'type="file"' in page.content
    bad = client.post(
        "/vugraph/import/", {"file": SimpleUploadedFile("m.lin", b"nope"), "policy": "strict"}
    )
    assert b"not a vugraph LIN file" in bad.content and ImportedMatch.objects.count() == 0
    done = client.post(
        "/vugraph/import/",
        {"file": SimpleUploadedFile("m.lin", LIN), "policy": "strict", "title": "Slam"},
    )
    item = ImportedMatch.objects.get()
    assert done.status_code == 302 and done["Location"] == f"/vugraph/{item.pk}/"
    listed = client.get("/vugraph/")
    assert listed.status_code == 200 and b"Slam" in listed.content
    assert client.get(f"/vugraph/{item.pk}.lin").content == LIN
    assert client.get("/vugraph/987654/").status_code == 404


def test_the_imported_match_page_hands_the_broadcast_template_its_contract(director):
    item = import_lin_file(by=director, data=LIN, policy="strict", title="Slam")
    request = RequestFactory().get(f"/vugraph/{item.pk}/")
    response = views.imported_match(request, item.pk)
    assert response.template_name == "broadcasts/broadcast.html"
    context = response.context_data
    assert context["socket_path"] is None and context["comment_url"] is None
    assert context["title"] == "Slam · 1"
    shown = context["snapshot"]
    assert set(shown) >= {"rooms", "boards", "teams", "score", "comments"}
    (line,) = shown["boards"]
    for key in ("open", "closed"):
        view = line["rooms"][key]
        assert view["over"] and view["contract"] == "7NT" and view["declarer"] == "N"
        assert view["stored_result"] == {
            "state": "played", "contract": "7NT", "declarer": "N", "tricks": 13,
            "ns_score": 1520, "adjusted": False,
        }  # fmt: skip
    assert line["imps"] == 0
    assert shown["rooms"][0]["players"] == {"S": "a", "W": "b", "N": "c", "E": "d"}
