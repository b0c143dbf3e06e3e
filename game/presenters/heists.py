"""Presenters of heists: the heist view, night results, the seal's answer and the history rows
(DESIGN.md section 5); the replay record is game.presenters.replay.

Each answer is declared once, by the serializers below: drf-spectacular builds the OpenAPI schema
from them and game.presenters.render.present renders the answer through them. The builders only
gather values: the heist view from ``observe(state, PLAYER)``, the engine's one door for
positions, plus the rival commitment of this night, so the rival's hand, either deck's order,
future loot, an unrevealed nonce and the server seed have no way into it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from rest_framework import serializers

from game.domain import HeistMark, HeistSnapshot
from game.engine import PLAYER, RIVAL, observe
from game.models import Heist, HeistNight
from game.presenters import words
from game.presenters.catalogue import EncounterSerializer, encounter_data
from game.presenters.render import present
from game.rivals.personas import get_persona
from shop.models import COSMETIC_KINDS


class VaultViewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    loot = serializers.IntegerField(help_text="This night's loot (0 when closed or over).")
    closed = serializers.BooleanField()


class HandCardSerializer(serializers.Serializer):
    card = serializers.IntegerField(help_text="Stable while the card is in your hand.")
    crew = serializers.CharField()


class CosmeticsSerializer(serializers.Serializer):
    card_back = serializers.CharField(allow_null=True, help_text="Card back slug; null: default.")
    board_theme = serializers.CharField(
        allow_null=True, help_text="Board theme slug; null: default."
    )
    title = serializers.CharField(allow_null=True, help_text="Title slug; null: none.")


class YouViewSerializer(serializers.Serializer):
    heat = serializers.IntegerField()
    energy = serializers.IntegerField()
    score = serializers.IntegerField()
    hand = HandCardSerializer(many=True)
    deck_count = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField())
    deck = serializers.ListField(child=serializers.CharField(), help_text="Your decklist.")
    cosmetics = CosmeticsSerializer(help_text="Your cosmetics, fixed when the heist started.")


class RivalViewSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    difficulty = serializers.CharField()
    heat = serializers.IntegerField()
    energy = serializers.IntegerField()
    score = serializers.IntegerField()
    hand_count = serializers.IntegerField()
    deck_count = serializers.IntegerField()
    discard = serializers.ListField(child=serializers.CharField())
    deck = serializers.ListField(child=serializers.CharField(), help_text="The rival's decklist.")
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 commitment to this night's sealed rival plan."
    )
    cosmetics = CosmeticsSerializer(help_text="The rival's cosmetics, fixed at the start.")


class PowerPartSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="Power: base, boost, bonus. Heat: boost, quiet, effect.")
    amount = serializers.IntegerField()
    reason = serializers.CharField(
        allow_blank=True, help_text='"<crew slug>: <condition>" for an effect, else empty.'
    )


class NightYouCrewSerializer(serializers.Serializer):
    card = serializers.IntegerField()
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True, help_text="The terms that sum to power.")


class NightRivalCrewSerializer(serializers.Serializer):
    crew = serializers.CharField()
    vault = serializers.CharField()
    power = serializers.IntegerField()
    breakdown = PowerPartSerializer(many=True, help_text="The terms that sum to power.")


class NightYouSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = NightYouCrewSerializer(many=True)
    heat_parts = PowerPartSerializer(
        many=True,
        default=list,
        help_text="The terms of the night's Heat change (boost, quiet, effect), then clamped.",
    )


class NightRivalSerializer(serializers.Serializer):
    heat_start = serializers.IntegerField()
    heat_end = serializers.IntegerField()
    boost = serializers.BooleanField()
    crew = NightRivalCrewSerializer(many=True)
    heat_parts = PowerPartSerializer(
        many=True,
        default=list,
        help_text="The terms of the night's Heat change (boost, quiet, effect), then clamped.",
    )
    nonce = serializers.CharField(help_text="Revealed with the plan: 64 hex characters.")
    commitment = serializers.CharField()


class WinnerField(serializers.ChoiceField):
    """The engine's winner of a vault ("player", "rival" or None) as the player's API says it."""

    _SAY = {PLAYER: "you", RIVAL: "rival"}

    def to_representation(self, value):
        return self._SAY[value]


class NightVaultSerializer(serializers.Serializer):
    slug = serializers.CharField()
    you_power = serializers.IntegerField(source="player_power")
    rival_power = serializers.IntegerField()
    winner = WinnerField(choices=["you", "rival"], allow_null=True)
    loot = serializers.IntegerField()


class ScoreSerializer(serializers.Serializer):
    you = serializers.IntegerField(source="player")
    rival = serializers.IntegerField()


# A resolved night (DESIGN.md section 5, "Night result"), read from the engine's stored
# NightResult.to_dict() (sides "player"/"rival") and the rival's revealed nonce. Beyond DESIGN's
# shape each crew entry carries the engine's breakdown of its power, so the reveal can say why
# without the client re-deriving the rules, each side the terms of its Heat change, and the night
# its closed vaults (the board shows a past night again from the history alone). (A comment: a
# docstring would enter the schema.)
class NightResultSerializer(serializers.Serializer):
    night = serializers.IntegerField()
    loot = serializers.DictField(child=serializers.IntegerField(), help_text="vault -> loot")
    closed = serializers.ListField(
        child=serializers.CharField(), default=list, help_text="The vaults closed that night."
    )
    you = NightYouSerializer(source="player")
    rival = NightRivalSerializer()
    vaults = NightVaultSerializer(many=True)
    score = ScoreSerializer()


class HeistResultSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["win", "loss", "draw"])
    you = serializers.IntegerField()
    rival = serializers.IntegerField()
    signs_awarded = serializers.IntegerField(allow_null=True)
    featured_bonus = serializers.IntegerField(
        allow_null=True, help_text="Signs a ranked featured finish earned on top; else null."
    )


class PracticeThenSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["win", "loss", "draw"])
    you = serializers.IntegerField()
    rival = serializers.IntegerField()


class PracticeOfSerializer(serializers.Serializer):
    heist = serializers.UUIDField(allow_null=True, help_text="The heist this one retries.")
    night = serializers.IntegerField(help_text="The night it starts from.")
    then = PracticeThenSerializer(
        allow_null=True, help_text="How the retried heist ended (null if it is gone)."
    )
    compared = serializers.CharField(
        allow_null=True, help_text="Once this retry is over: how it compares with what happened."
    )


class HeistViewSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    ruleset = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "finished", "abandoned"])
    night = serializers.IntegerField()
    nights = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=["rival_planning", "planning", "finished"])
    vaults = VaultViewSerializer(many=True)
    you = YouViewSerializer()
    rival = RivalViewSerializer()
    encounter = EncounterSerializer(allow_null=True)
    seed_commitment = serializers.CharField()
    featured = serializers.CharField(
        allow_null=True, help_text="The featured slot's slug, for a featured heist; else null."
    )
    ranked = serializers.BooleanField(help_text="A featured heist that counts on the board.")
    history = NightResultSerializer(many=True)
    result = HeistResultSerializer(allow_null=True)
    practice_of = PracticeOfSerializer(
        allow_null=True,
        help_text="A practice retry of a night (never ranked, never earns); else null.",
    )
    challenge = serializers.CharField(
        allow_null=True,
        help_text="The challenge this heist answers (never ranked, never earns); else null.",
    )


class SealOutputSerializer(serializers.Serializer):
    result = NightResultSerializer()
    heist = HeistViewSerializer()


# --- Builders -------------------------------------------------------------------------------


def _night_data(night: HeistNight) -> dict[str, Any]:
    r = night.result
    return {
        **r,
        # In vault order (the stored JSON may come back with its keys reordered).
        "loot": {v["slug"]: r["loot"][v["slug"]] for v in r["vaults"]},
        # The rival's card ids are not declared: they would say which of its cards it held.
        "rival": {**r[RIVAL], "nonce": night.rival_nonce, "commitment": night.rival_commitment},
    }


def night_data(night: HeistNight) -> dict[str, Any]:
    """A resolved night as :class:`NightResultSerializer` reads it (for answers nesting it)."""
    return _night_data(night)


def night_result(night: HeistNight) -> dict[str, Any]:
    """A resolved night as the API shows it."""
    return present(NightResultSerializer, _night_data(night))


def heist_cosmetics(heist: Heist, side: str) -> dict[str, str | None]:
    """One side's cosmetics as fixed when the heist started (``"you"`` or ``"rival"``); every
    kind present, None where nothing was equipped (and for heists older than cosmetics)."""
    stored = (heist.cosmetics or {}).get(side) or {}
    return {kind.value: stored.get(kind.value) for kind in COSMETIC_KINDS}


def _phase(heist: Heist, current: HeistNight | None) -> str:
    if heist.is_closed or current is None:
        return "finished"
    return "planning" if current.rival_sealed else "rival_planning"


def _view_data(snapshot: HeistSnapshot) -> dict[str, Any]:
    heist, nights = snapshot.heist, snapshot.nights
    obs = observe(snapshot.state, PLAYER)
    current = snapshot.current
    persona = get_persona(heist.rival)
    result = None
    if heist.status == Heist.Status.FINISHED:
        result = {
            "outcome": heist.outcome,
            "you": obs.score[PLAYER],
            "rival": obs.score[RIVAL],
            "signs_awarded": heist.signs_awarded,
            "featured_bonus": heist.featured_bonus,
        }
    return {
        "id": heist.pk,
        "ruleset": heist.ruleset,
        "status": heist.status,
        # Once over, the last night played (the engine counts on to nights + 1).
        "night": min(obs.night, obs.nights),
        "nights": obs.nights,
        "phase": _phase(heist, current),
        "vaults": [
            {
                "slug": slug,
                "name": name,
                "loot": obs.loot.get(slug, 0),
                "closed": slug in obs.closed,
            }
            for slug, name in obs.vaults
        ],
        "you": {
            "heat": obs.heat[PLAYER],
            "energy": obs.energy[PLAYER],
            "score": obs.score[PLAYER],
            "hand": [{"card": card, "crew": slug} for card, slug in obs.hand],
            "deck_count": obs.deck_count[PLAYER],
            "discard": obs.discard[PLAYER],
            "deck": obs.decklists[PLAYER],
            "cosmetics": heist_cosmetics(heist, "you"),
        },
        "rival": {
            "slug": persona.slug,
            "name": persona.name,
            "difficulty": heist.difficulty,
            "heat": obs.heat[RIVAL],
            "energy": obs.energy[RIVAL],
            "score": obs.score[RIVAL],
            "hand_count": obs.hand_count[RIVAL],
            "deck_count": obs.deck_count[RIVAL],
            "discard": obs.discard[RIVAL],
            "deck": obs.decklists[RIVAL],
            "commitment": current.rival_commitment if current is not None else None,
            "cosmetics": heist_cosmetics(heist, "rival"),
        },
        "encounter": encounter_data(heist.encounter) if heist.encounter else None,
        "seed_commitment": heist.seed_commitment,
        "featured": heist.featured_slot_id,
        "ranked": heist.ranked,
        "history": [_night_data(n) for n in nights if n.result is not None],
        "result": result,
        "practice_of": _practice_of(heist, result),
        "challenge": heist.challenge_id,
    }


def _practice_of(heist: Heist, result: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a practice retry retries, how that heist ended, and, once the retry is over, the
    two side by side in a sentence."""
    if not heist.is_practice:
        return None
    original = heist.practice_of
    then = None
    if original is not None and original.status == Heist.Status.FINISHED:
        score = original.nights.filter(result__isnull=False).order_by("-night").first()
        final = score.result["score"] if score is not None else {PLAYER: 0, RIVAL: 0}
        then = {"outcome": original.outcome, "you": final[PLAYER], "rival": final[RIVAL]}
    compared = None
    if result is not None and then is not None:
        compared = words.practice_compared(heist.practice_night, result, then)
    return {
        "heist": heist.practice_of_id,
        "night": heist.practice_night,
        "then": then,
        "compared": compared,
    }


# Part of every heist view's entity tag: bump it when what the view says changes (its shape,
# its words), so a board holding a view from before a release reads it again.
VIEW_TAG_VERSION = "1"


def view_etag(mark: HeistMark) -> str:
    """The heist view's entity tag (``ETag``), made only of what the view itself shows: the
    status, the night and the night in play's rival commitment. Everything else in a view
    follows from those (a night's results never change once played; the hand, Heat and piles
    change only when a night is resolved; what a finish sets comes with the status), and
    nothing hidden goes in: never the rival's plan, nonce or hand, the seeds or the deck order,
    so two views that differ only there carry the same tag."""
    shown = mark.commitment if mark.status == Heist.Status.ACTIVE else None
    text = f"heist-view:{VIEW_TAG_VERSION}:{mark.status}:{mark.night}:{shown or ''}"
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


def heist_view_etag(snapshot: HeistSnapshot) -> str:
    """:func:`view_etag` of the view :func:`heist_view` builds from ``snapshot``."""
    current = snapshot.current
    commitment = current.rival_commitment if current is not None else None
    return view_etag(HeistMark(snapshot.heist.status, snapshot.heist.night, commitment))


def heist_view(snapshot: HeistSnapshot) -> dict[str, Any]:
    """The heist as its player may see it (DESIGN.md section 5, "Heist view")."""
    return present(HeistViewSerializer, _view_data(snapshot))


def seal_answer(night: HeistNight, snapshot: HeistSnapshot) -> dict[str, Any]:
    """The seal's answer: the night just resolved and the heist after it."""
    return present(
        SealOutputSerializer, {"result": _night_data(night), "heist": _view_data(snapshot)}
    )


def history_rows(heists: Iterable[Heist]) -> list[dict[str, Any]]:
    """One row per heist (``player_heists``, with ``last_score``), newest first: the profile
    page and the export. The page links to the game's pages; the export keeps these API links."""
    rows = []
    for h in heists:
        score = h.last_score or {PLAYER: 0, RIVAL: 0}
        rows.append(
            {
                "id": str(h.pk),
                "rival": h.rival,
                "difficulty": h.difficulty,
                "encounter": h.encounter_slug or None,
                "status": h.status,
                "outcome": h.outcome or None,
                "score": {"you": score[PLAYER], "rival": score[RIVAL]},
                "created_at": h.created_at.isoformat(),
                "finished_at": h.finished_at.isoformat() if h.finished_at else None,
                "replay_url": f"/api/v1/heists/{h.pk}/replay/" if h.is_closed else None,
                "accuracy": None if h.accuracy is None else round(h.accuracy, 1),
                "practice_of": str(h.practice_of_id) if h.practice_of_id else None,
            }
        )
    return rows
