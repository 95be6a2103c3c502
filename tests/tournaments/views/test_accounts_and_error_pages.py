"""The account pages and the error pages, through Django's test client: e-mail at
sign-up, password reset (also in Chinese, and limited per address), where mail goes, the
favicon, and the 404 and 500 pages in the site's look."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.staticfiles import finders
from django.core import mail
from django.urls import path, reverse

import tournaments.urls

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_pages")]

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


# --- Accounts: e-mail at sign-up, password reset --------------------------------------------


def _sign_up(client, username: str, email: str = ""):
    return client.post(
        reverse("signup"),
        {
            "username": username,
            "display_name": "",
            "email": email,
            "password1": "a-Long-pass-4321",
            "password2": "a-Long-pass-4321",
        },
    )


def test_sign_up_takes_an_optional_e_mail_address(client):
    form = client.get(reverse("signup")).content.decode()
    assert 'type="email" name="email"' in form and "Needed only to reset" in form
    assert _sign_up(client, "with_mail", "Wei@Example.ORG").status_code == 302
    client.post(reverse("logout"))
    assert _sign_up(client, "without_mail").status_code == 302
    client.post(reverse("logout"))
    bad = _sign_up(client, "bad_mail", "not an address")
    assert bad.status_code == 200 and "Enter a valid email address." in bad.content.decode()
    users = get_user_model().objects
    assert users.get(username="with_mail").email == "Wei@example.org"
    assert users.get(username="without_mail").email == ""
    assert not users.filter(username="bad_mail").exists()


def test_password_reset_by_e_mail_end_to_end(client, make_user):
    user = make_user("wei", name="Wang Wei")
    user.email = "wei@example.org"
    user.save()
    login = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in login
    form = client.get(reverse("password_reset"))
    assert form.status_code == 200 and "Forgotten password" in form.content.decode()
    assert 'class="site-header"' in form.content.decode()  # the site's look, not admin's

    # An unknown address gets the same answer and no mail.
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response.status_code == 302 and mail.outbox == []
    response = client.post(reverse("password_reset"), {"email": "wei@example.org"}, follow=True)
    assert "Check your e-mail" in response.content.decode()
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["wei@example.org"]
    assert message.subject == "Set a new password · Swiss pairs"
    assert "Hello Wang Wei," in message.body and "Your username is wei." in message.body
    link = re.search(r"https?://[^/\s]+(/accounts/reset/\S+/)", message.body).group(1)

    page = client.get(link, follow=True)
    assert "Set a new password" in page.content.decode()
    done = client.post(
        page.redirect_chain[-1][0],
        {"new_password1": "New-secret-9876", "new_password2": "New-secret-9876"},
        follow=True,
    )
    assert "Your new password is set." in done.content.decode()
    logged_in = client.post(reverse("login"), {"username": "wei", "password": "New-secret-9876"})
    assert logged_in.status_code == 302
    client.post(reverse("logout"))
    # The link works once.
    used = client.get(link, follow=True).content.decode()
    assert "This link has expired or has been used already." in used


def test_password_reset_requests_are_limited_per_address(client, make_user, settings):
    settings.PASSWORD_RESET_RATE = "2/hour"
    user = make_user("wei")
    user.email = "wei@example.org"
    user.save()
    for _ in range(2):
        assert client.post(reverse("password_reset"), {"email": "wei@example.org"}).status_code
    assert len(mail.outbox) == 2
    refused = client.post(reverse("password_reset"), {"email": "wei@example.org"})
    assert refused.status_code == 429
    assert "Too many password reset requests from your address" in refused.content.decode()
    assert len(mail.outbox) == 2  # nothing sent


def test_password_reset_mail_and_pages_in_chinese(client, make_user):
    user = make_user("li", name="李伟")
    user.email = "li@example.org"
    user.save()
    assert "忘记密码" in client.get(reverse("password_reset"), **ZH).content.decode()
    client.post(reverse("password_reset"), {"email": "li@example.org"}, **ZH)
    assert "李伟，您好：" in mail.outbox[0].body and mail.outbox[0].subject.startswith("设置新密码")


def test_e_mail_goes_to_the_console_in_development_and_smtp_in_production():
    base = (Path(__file__).resolve().parents[3] / "config" / "settings" / "base.py").read_text()
    production = (
        Path(__file__).resolve().parents[3] / "config" / "settings" / "production.py"
    ).read_text()
    assert '"django.core.mail.backends.console.EmailBackend"' in base
    assert 'EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"' in production
    assert 'EMAIL_HOST = env("EMAIL_HOST"' in production


# --- Favicon, 404 and 500 in the site's look --------------------------------------------------


def test_favicon(client):
    assert finders.find("favicon.svg")
    svg = Path(finders.find("favicon.svg")).read_text()
    assert svg.startswith("<svg") and "</svg>" in svg
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert 'rel="icon"' in client.get(reverse("home")).content.decode()


def test_404_page_in_the_sites_look_with_debug_off(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert 'class="site-header"' in html and "There is no such page." in html
    assert "Page not found at" not in html  # Django's debug page
    zh = client.get("/no/such/page/", **ZH).content.decode()
    assert "没有这个页面。" in zh and "比赛、牌或牌手对可能已被删除" in zh


def _boom(request):
    raise RuntimeError("simulated failure")


urlpatterns = [path("boom/", _boom), *tournaments.urls.urlpatterns]


def test_500_page_in_the_sites_look_with_debug_off(client, settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = __name__
    client.raise_request_exception = False
    response = client.get("/boom/")
    html = response.content.decode()
    assert response.status_code == 500
    assert 'class="site-header"' in html and "Something went wrong" in html
    assert "simulated failure" not in html and "Traceback" not in html
    zh = client.get("/boom/", **ZH).content.decode()
    assert "出错了" in zh
