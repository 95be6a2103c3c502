"""Times as the pages and messages write them: in the site's zone, with the zone said."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

MINUS = "\u2212"


def zone_label(moment: datetime) -> str:
    """The site's time zone at `moment` as an offset from UTC, 'UTC+8', 'UTC+5:30':
    abbreviations such as 'CST' mean different zones to different readers."""
    offset = timezone.localtime(moment).utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    sign = "+" if minutes >= 0 else MINUS
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{mins:02d}" if mins else "")
