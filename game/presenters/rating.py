"""The rating as the API sends it and the pages say it (DESIGN.md section 11): /api/v1/me/'s
``rating``, the profile's section, the result page's before -> after, the rules page's
section, and the export's. Ratings are shown as whole points; the provisional state is said
in words wherever a rating is shown."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from rest_framework import serializers

from game.models import Heist, RatingChange
from game.rating.anchors import Anchors, current
from game.rating.glicko2 import SCALE, expected
from game.selectors.catalogue import difficulties
from game.selectors.rating import (
    PlayerRatingNow,
    heist_rates,
    rating_change_of,
    rating_changes,
    rating_now,
)

PROFILE_CHANGES = 10
# A 95% range: the rating plus or minus two deviations.
RANGE = 2


class PlayerRatingSerializer(serializers.Serializer):
    value = serializers.IntegerField(help_text="The rating, in whole points (1500 to start).")
    deviation = serializers.IntegerField(
        help_text="How unsure the rating is, in points (350 to start): the true rating is "
        "likely within two deviations of it."
    )
    provisional = serializers.BooleanField(
        help_text="True while the deviation is above the anchors' provisional bound (110)."
    )


def me_field() -> serializers.Serializer:
    return PlayerRatingSerializer(
        allow_null=True,
        help_text="Your Glicko-2 rating from your finished heists against the levels; null for "
        "a guest (guests are never rated). A player with no rated heist yet has the start "
        "rating, provisional.",
    )


def rating_answer(value: float, deviation: float, provisional: bool) -> dict[str, Any]:
    return {"value": round(value), "deviation": round(deviation), "provisional": provisional}


def me_rating(user: AbstractBaseUser | None) -> dict[str, Any] | None:
    if user is None:
        return None
    now = rating_now(user_id=user.pk)
    return rating_answer(now.value, now.deviation, now.provisional)


def _level_names() -> dict[str, str]:
    return {d.slug: d.name for d in difficulties()}


def _percent(x: float) -> int:
    return round(100 * x)


def provisional_words(anchors: Anchors) -> str:
    bound = round(RANGE * anchors.provisional_above)
    return (
        "Provisional: the site is still finding your level, so your rating moves a lot after "
        f"each heist. It settles once its range is narrower than ±{bound} points, usually after "
        "about a dozen rated heists."
    )


def _levels(value: float | None, anchors: Anchors) -> list[dict[str, Any]]:
    names = _level_names()
    return [
        {
            "slug": a.level,
            "name": names.get(a.level, a.level),
            "rating": a.rating,
            "deviation": a.deviation,
            "expected": None if value is None else _percent(expected(value, a.rating, a.deviation)),
        }
        for a in anchors.levels.values()
    ]


def _shown(now: PlayerRatingNow) -> dict[str, Any]:
    return {
        "value": round(now.value),
        "deviation": round(now.deviation),
        "low": round(now.value - RANGE * now.deviation),
        "high": round(now.value + RANGE * now.deviation),
        "provisional": now.provisional,
        "heists": now.heists,
    }


def _change_row(change: RatingChange, names: dict[str, str]) -> dict[str, Any]:
    before, after = round(change.before_value), round(change.after_value)
    return {
        "heist": str(change.heist_id),
        "number": change.number,
        "result": change.result,
        "level": change.level,
        "level_name": names.get(change.level, change.level),
        "opponent": change.opponent,
        "before": before,
        "after": after,
        "delta": after - before,
        "rated_at": change.rated_at,
    }


def profile_rating(user: AbstractBaseUser) -> dict[str, Any]:
    """The profile's section: the rating with its range and state, where the levels sit for
    this rating (the expected score against each), and the latest rated heists."""
    anchors = current()
    now = rating_now(user_id=user.pk, anchors=anchors)
    names = _level_names()
    return {
        "rating": _shown(now),
        "provisional_words": provisional_words(anchors),
        "levels": _levels(now.value, anchors),
        "changes": [
            _change_row(c, names) for c in rating_changes(user_id=user.pk, limit=PROFILE_CHANGES)
        ],
    }


def _exact(value: float, deviation: float) -> dict[str, float]:
    """To the hundredth of a point: past that a float's last digits are the machine's."""
    return {"value": round(value, 2), "deviation": round(deviation, 2)}


def export_rating(user: AbstractBaseUser) -> dict[str, Any]:
    """The export's ``rating``: the rating now and every rated heist, oldest first."""
    now = rating_now(user_id=user.pk)
    names = _level_names()
    changes = []
    for change in reversed(rating_changes(user_id=user.pk)):
        row = _change_row(change, names)
        changes.append(
            {
                **{k: row[k] for k in ("heist", "number", "result", "level", "opponent")},
                "anchors": change.anchors,
                "before": _exact(change.before_value, change.before_deviation),
                "after": _exact(change.after_value, change.after_deviation),
                "rated_at": change.rated_at.isoformat(),
            }
        )
    return {
        **_exact(now.value, now.deviation),
        "volatility": round(now.volatility, 6),
        "provisional": now.provisional,
        "heists": now.heists,
        "changes": changes,
    }


_AGAINST = {
    "win": "A win against {level} (rated {opponent})",
    "draw": "A draw against {level} (rated {opponent})",
    "loss": "A loss against {level} (rated {opponent})",
    "abandoned": "Left unfinished, so counted as a loss against {level} (rated {opponent})",
}


def _why_not(game: Heist, *, signed_in: bool) -> str:
    if not signed_in:
        return "Guests have no rating: a signed-in player's every heist against a level rates it."
    if game.is_practice:
        return "A practice retry never changes your rating."
    if game.featured_slot_id is not None and not game.ranked:
        return "A featured heist after your ranked try is practice: it never changes your rating."
    if game.user_id is not None and not heist_rates(game):
        return "A challenge never changes your rating."
    # Still a guest's (this browser's, not yet claimed), or claimed after it closed as one.
    return (
        "This heist did not change your rating: it closed before you were signed in, or "
        "before ratings began."
    )


def result_rating(game: Heist, *, signed_in: bool) -> dict[str, Any]:
    """The result page's ``rating``: ``change`` (before -> after, with what it was against and
    the provisional state in words) or ``why`` it did not rate."""
    change = rating_change_of(heist_id=game.pk) if signed_in else None
    if change is None:
        return {"change": None, "why": _why_not(game, signed_in=signed_in)}
    anchors = current()
    row = _change_row(change, _level_names())
    was = anchors.provisional(change.before_deviation)
    now = anchors.provisional(change.after_deviation)
    if now:
        state = provisional_words(anchors)
    elif was:
        state = "Your rating is no longer provisional: the site has found your level."
    else:
        state = ""
    return {
        "change": {
            **row,
            "against": _AGAINST[change.result].format(
                level=row["level_name"], opponent=change.opponent
            ),
            "deviation": round(change.after_deviation),
            "provisional": now,
            "state": state,
        },
        "why": "",
    }


def rules_rating() -> dict[str, Any]:
    """The rules page's section: how the rating works, the formula of the anchors and the
    anchors themselves, from the data (game/data/rating.json)."""
    anchors = current()
    start = anchors.start
    source = anchors.source
    bound = round(anchors.provisional_above)
    return {
        "lines": [
            "Every heist a signed-in player finishes against a level moves their rating, by "
            "the Glicko-2 system (Mark Glickman's): a rating, a deviation that says how sure "
            f"it is, and a volatility. A new player starts at {start.value:.0f} with a deviation "
            f"of {start.deviation:.0f}.",
            "A win scores 1, a draw ½ and a loss 0; a heist left unfinished (abandoned) counts "
            "as a loss. Each heist is rated on its own, as it closes, against the level it was "
            "played at.",
            "Each level is a fixed opponent whose rating, its anchor, is measured from the "
            "rival tournament with the formula below: s is the level's Bradley-Terry strength "
            f"on the tournament's ladder, and s\u2080 = {anchors.zero:g} the average strength "
            "of the twelve scripted player styles the levels were tested against. So 1500 is "
            "where an ordinary player is expected to sit, and a side 400 points above another "
            "is expected to score 10 to 1 against it.",
            f"A rating is provisional while its deviation is above {bound} (its range wider than "
            f"±{RANGE * bound}): usually for the first dozen rated heists.",
            "Practice (a retry of a night, or a featured heist after your ranked try), "
            "challenges and guests' heists never change a rating.",
        ],
        "formula": "anchor = 1500 + 173.7178 \u00d7 (s \u2212 s\u2080)",
        "levels": _levels(start.value, anchors),
        "version": anchors.version,
        "source": {
            "date": str(source.get("date", "")),
            "games": f"{source.get('games', 0):,}",
            "ruleset": source.get("ruleset", ""),
        },
        "scale": SCALE,
    }
