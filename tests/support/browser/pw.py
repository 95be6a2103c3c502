"""Playwright (sync API) against pytest-django's live_server, in the system Chromium."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[3] / "test-artifacts" / "screenshots"


@contextmanager
def chromium():
    """A headless Chromium for one test module.

    Playwright's sync API runs an event loop in this thread, and Django refuses ORM
    calls from a thread with a running loop unless DJANGO_ALLOW_ASYNC_UNSAFE is set —
    the documented escape hatch for exactly this (the test body is synchronous).
    """
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def new_page(browser, *, locale: str = "en-GB", width: int = 1280, height: int = 900):
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    # Generous for a loaded machine (parallel workers beside it): a wait that ends early
    # costs nothing, and a page slower than this is still a failure.
    context.set_default_timeout(30_000)
    return context.new_page()


def shot_path(name: str) -> Path:
    """Where screenshot `name` goes (for a locator's own screenshot, as `shot` for a page)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def shot(page, name: str, *, full_page: bool = True) -> Path:
    path = shot_path(name)
    page.screenshot(path=str(path), full_page=full_page)
    return path


def log_in(page, base_url: str, username: str, password: str, *, admin: bool = False) -> None:
    """Log in on the site's login page and land on the home page, or (admin=True) on the
    admin's own login page and land on the admin index."""
    if admin:
        path, submit, landing = "/admin/login/?next=/admin/", "input[type=submit]", "/admin/"
    else:
        path, submit, landing = "/accounts/login/", "form.stacked button[type=submit]", "/"
    page.goto(f"{base_url}{path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click(submit)
    page.wait_for_url(f"{base_url}{landing}")
