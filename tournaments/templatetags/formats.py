"""The format's parts of the pages in templates every page includes (the heads of a
tournament's pages and of the console), whichever view rendered them:
`{% with pages=tournament|format_pages %}` (`views.format_pages.pages_of`)."""

from __future__ import annotations

from django import template

from tournaments.views.format_pages import FormatPages, pages_of

register = template.Library()


@register.filter
def format_pages(tournament) -> FormatPages | None:
    """The parts of the pages `tournament`'s format shows; None without a tournament."""
    return pages_of(tournament) if tournament else None
