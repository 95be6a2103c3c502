"""Helpers shared by the page and browser tests (building events quickly)."""
