"""Pairs in templates: `{{ pair|pair_number:labels }}` is the number the pages print for a
pair (`selectors.pair_labels.PairLabels`: the movement's label, "3NS", or the
registration number), the one rule for every page that shows a `Pair`."""

from __future__ import annotations

from django import template

from tournaments.selectors.pair_labels import PairLabels

register = template.Library()


@register.filter
def pair_number(pair, labels: PairLabels | None) -> str:
    if pair is None:
        return ""
    if labels is None:  # a page that numbers by registration only
        return str(pair.registration_no)
    return labels.of(pair)
