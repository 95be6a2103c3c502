"""The admin home page's line about the director's console: disputes waiting."""

from __future__ import annotations

from django import template

from ..selectors import console as console_selectors

register = template.Library()


@register.simple_tag
def disputes_waiting() -> int:
    """Disputed results waiting for the director, across every tournament (one query)."""
    return console_selectors.dispute_count()
