"""Browser fixtures shared by the Playwright tests (registered in tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.support.browser.pw import chromium, new_page


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module."""
    with chromium() as b:
        yield b


@pytest.fixture
def open_page(browser):
    """new_page(…) for this test; its browser contexts close at the end (no stray polls)."""
    contexts = []

    def make(**kwargs):
        page = new_page(browser, **kwargs)
        contexts.append(page.context)
        return page

    yield make
    for context in contexts:
        context.close()
