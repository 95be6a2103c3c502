"""The rank titles' master-point thresholds (RULES 7): they start at 0 and increase.

A change to one threshold is checked against the whole sequence
(`scoring.validate_title_thresholds`), so a typo such as 2000 for 5 is refused before
it shows a player with 2,500 master points a lower title than one with 1,500.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import scoring

from .. import validators
from ..errors import ServiceError, scoring_message
from ..models import RankTitle
from ..permissions import APP
from .permissions import require

CHANGE_RANKTITLE = f"{APP}.change_ranktitle"


class TitleThresholdsInvalid(ServiceError):
    pass


def check_title_thresholds(changes: Mapping[int, Decimal]) -> list[tuple[int, Decimal]]:
    """The stored thresholds by level with `changes` ({level: threshold}) applied, checked
    as one sequence; refuses with the validator's message naming the titles involved."""
    stored = dict(RankTitle.objects.order_by("level").values_list("level", "min_master_points"))
    unknown = sorted(set(changes) - set(stored))
    if unknown:
        raise TitleThresholdsInvalid(
            _("There is no rank title of level %(levels)s.")
            % {"levels": ", ".join(map(str, unknown))}
        )
    sequence = sorted({**stored, **changes}.items())
    for level, value in sequence:
        if value is None or not Decimal(value).is_finite() or value < 0:
            raise TitleThresholdsInvalid(
                _("The threshold of title %(level)s must be 0 or more master points.")
                % {"level": level}
            )
    try:
        scoring.validate_title_thresholds([float(value) for _level, value in sequence])
    except scoring.ScoringError as error:
        name = "name_zh" if (get_language() or "").startswith("zh") else "name_en"
        names = dict(RankTitle.objects.values_list("level", name))
        order = [f"{names.get(level, level)} {float(value):g}" for level, value in sequence]
        raise TitleThresholdsInvalid(
            _("%(problem)s (now: %(order)s).")
            % {"problem": scoring_message(error), "order": ", ".join(order)}
        ) from None
    return sequence


def set_title_thresholds(*, changes: Mapping[int, Decimal], by) -> None:
    """Store new thresholds ({level: master points}) after checking the whole sequence;
    `by` needs `tournaments.change_ranktitle`. Nothing is saved on a refusal."""
    require(by, CHANGE_RANKTITLE)
    with transaction.atomic():
        list(RankTitle.objects.select_for_update().order_by("level"))
        check_title_thresholds(changes)
        for level, value in changes.items():
            RankTitle.objects.filter(level=level).update(min_master_points=value)


def title_name(value, field: str) -> str:
    """A title's name as stored in `field` (name_zh or name_en), or refused saying why."""
    limit = getattr(RankTitle._meta.get_field(field), "max_length", None)
    name = value.strip() if isinstance(value, str) else ""
    if not name:
        raise TitleThresholdsInvalid(_("Give the title its name in both languages."))
    try:
        validators.validate_name(name)
    except ValidationError as error:
        raise TitleThresholdsInvalid(error.messages[0]) from None
    if limit is not None and len(name) > limit:
        raise TitleThresholdsInvalid(
            _("A title's name has at most %(n)s characters.") % {"n": limit}
        )
    return name


def update_title(
    *, level: int, name_zh: str, name_en: str, min_master_points: Decimal, by
) -> RankTitle:
    """One title's names and threshold; the threshold checked against the whole
    sequence. `by` needs `tournaments.change_ranktitle`. Nothing is saved on a refusal."""
    require(by, CHANGE_RANKTITLE)
    names = {"name_zh": title_name(name_zh, "name_zh"), "name_en": title_name(name_en, "name_en")}
    with transaction.atomic():
        titles = {t.level: t for t in RankTitle.objects.select_for_update().order_by("level")}
        if level not in titles:
            raise TitleThresholdsInvalid(_("There is no title of level %(n)s.") % {"n": level})
        check_title_thresholds({level: min_master_points})
        title = titles[level]
        for field, value in names.items():
            setattr(title, field, value)
        title.min_master_points = min_master_points
        title.save(update_fields=[*names, "min_master_points"])
    return title
