"""The Rate's settings (SPEC 13), with SPEC's defaults.

Every number of the formula is a setting, so an organiser can tune it and a past week can be
recomputed exactly: the week's close records `RatingParameters.as_dict()` beside its figures,
and `RatingParameters.from_dict` gives the same parameters back (floats survive JSON exactly,
since Python writes the shortest repr that reads back the same).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from .errors import RatingError, gettext_noop


@dataclass(frozen=True)
class RatingParameters:
    """The numbers of SPEC 13's Rate.

    - ``fade`` (λ): how much of last week's carried weight counts this week; 0.9 lets an
      old result fade to half in about 6.6 weeks.
    - ``prior_weight`` (C0): the weight a new player starts with, in boards; 30 means a
      first week of 30 boards moves a Rate only about halfway to that week's mean.
    - ``start_rate``: a new player's Rate, 50.
    - ``imp_multiplier``: X = clamp(0.5 + IMPs × multiplier, 0, 1); Lehman's 1/15 (20/3 %
      per IMP), so ±7.5 IMPs and more is a whole board won or lost.
    - ``listed_weight``: the Rate list shows players carrying at least this weight (50).
    """

    fade: float = 0.9
    prior_weight: float = 30.0
    start_rate: float = 50.0
    imp_multiplier: float = 1 / 15
    listed_weight: float = 50.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise RatingError(
                    gettext_noop("the rating setting %(name)s must be a number, got %(value)s"),
                    name=field.name,
                    value=repr(value),
                )
            if not math.isfinite(value):
                raise RatingError(
                    gettext_noop("the rating setting %(name)s must be finite, got %(value)s"),
                    name=field.name,
                    value=repr(value),
                )
            object.__setattr__(self, field.name, float(value))
        if not 0 < self.fade <= 1:
            raise RatingError(
                gettext_noop("the fade λ must be above 0 and at most 1, got %(value)s"),
                value=self.fade,
            )
        if self.prior_weight < 0:
            raise RatingError(
                gettext_noop("the prior weight must not be negative, got %(value)s"),
                value=self.prior_weight,
            )
        if self.start_rate <= 0:
            # A Rate of 0 never moves while the partner's is not 0 (the pseudo-rating is
            # a share of the partnership's Rates), so no one may start there.
            raise RatingError(
                gettext_noop("the starting Rate must be above 0, got %(value)s"),
                value=self.start_rate,
            )
        if self.imp_multiplier <= 0:
            raise RatingError(
                gettext_noop("the IMP multiplier must be above 0, got %(value)s"),
                value=self.imp_multiplier,
            )
        if self.listed_weight < 0:
            raise RatingError(
                gettext_noop("the Rate list's weight must not be negative, got %(value)s"),
                value=self.listed_weight,
            )

    def as_dict(self) -> dict[str, float]:
        """The settings to store with a week's figures (JSON-safe)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> RatingParameters:
        """The settings a week was computed with; unknown names are refused, missing ones
        take SPEC's default."""
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RatingError(
                gettext_noop("unknown rating settings: %(names)s"), names=", ".join(unknown)
            )
        return cls(**data)  # type: ignore[arg-type]  # each value is checked in __post_init__


#: SPEC 13's settings
DEFAULT_PARAMETERS = RatingParameters()
