"""Presenters of challenges (DESIGN.md section 11): the answer of ``GET /api/v1/challenges/{slug}/``
and the side-by-side page.

Hidden information has one rule here, :func:`original_revealed` and :func:`answer_revealed`:
the challenger's nights and score reach a friend only once the friend's own heist of the
challenge has finished, and a friend's reach the challenger only then too. Before that a
challenge shows what the link promised and nothing more (the rival, the difficulty, the
encounter, the deck and who sent it; a friend's status, for the challenger). Never the original
heist's id, seeds or replay: the original's server seed is the friend's, and would deal them
every hand and every night's loot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework import serializers

from game.engine import PLAYER, RIVAL
from game.models import Challenge, Heist, HeistNight
from game.owners import Owner
from game.presenters.catalogue import EncounterSerializer, encounter_data
from game.presenters.heists import NightResultSerializer, night_data
from game.presenters.render import present
from game.selectors import challenges as challenge_selectors
from game.selectors.heists import heist_nights

# Who sent a challenge, or answered one, when they have no handle to show: a guest, or an
# account deleted since (its heists stay, nameless).
NEUTRAL_HANDLE = "a player"
_OUTCOMES = ["win", "loss", "draw"]


class ChallengeMadeSerializer(serializers.Serializer):
    slug = serializers.CharField(help_text="The challenge's secret name: its link's last part.")
    url = serializers.URLField(help_text="The link to send: it opens the challenge's page.")


class ChallengeScoreSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=_OUTCOMES, help_text="Against the rival.")
    player = serializers.IntegerField(help_text="The player's loot.")
    rival = serializers.IntegerField(help_text="The rival's loot.")


class ChallengeYouSerializer(serializers.Serializer):
    heist = serializers.UUIDField(help_text="Your heist of this challenge.")
    status = serializers.ChoiceField(choices=["active", "finished", "abandoned"])
    score = serializers.IntegerField(help_text="Your loot after the last night played.")


class ChallengeAnswerSerializer(serializers.Serializer):
    heist = serializers.UUIDField(help_text="The friend's heist (its side-by-side page).")
    player = serializers.CharField(help_text="The friend's public handle, or a neutral name.")
    status = serializers.ChoiceField(choices=["active", "finished", "abandoned"])
    score = ChallengeScoreSerializer(allow_null=True, help_text="Null until they finished.")
    nights = NightResultSerializer(
        many=True, allow_null=True, help_text="Their nights (you: the friend); null until then."
    )


class ChallengeSerializer(serializers.Serializer):
    slug = serializers.CharField()
    rival = serializers.CharField(help_text="The rival persona's slug.")
    difficulty = serializers.CharField()
    encounter = EncounterSerializer(allow_null=True)
    deck = serializers.ListField(child=serializers.CharField(), help_text="The 12 cards played.")
    score = ChallengeScoreSerializer(
        allow_null=True, help_text="The challenger's result; null until you finished yours."
    )
    nights = NightResultSerializer(
        many=True,
        allow_null=True,
        help_text="The challenger's nights (you: the challenger); null until you finished yours.",
    )
    you = ChallengeYouSerializer(allow_null=True, help_text="Your heist of it; null before.")
    challenger = serializers.BooleanField(help_text="Whether you sent this challenge.")
    answers = ChallengeAnswerSerializer(
        many=True, allow_null=True, help_text="For its challenger: every friend's heist of it."
    )

    def get_fields(self):
        # ``from`` (DESIGN.md section 5) is a Python keyword: declared here, in its place.
        fields = super().get_fields()
        made_by = serializers.CharField(help_text="The challenger's public handle.")
        order = ["slug", "rival", "difficulty", "encounter", "deck", "from"]
        out = {name: fields.pop(name) for name in order if name != "from"} | {"from": made_by}
        out = {name: out[name] for name in order}
        return out | fields


# --- What may be seen -----------------------------------------------------------------------


def original_revealed(*, challenger: bool, answer: Heist | None) -> bool:
    """Whether the challenger's heist (its nights and score) may be shown: to the challenger,
    and to a friend whose own heist of the challenge has finished."""
    return challenger or (answer is not None and answer.status == Heist.Status.FINISHED)


def answer_revealed(answer: Heist) -> bool:
    """Whether a friend's heist may be shown to the challenger: once it has finished."""
    return answer.status == Heist.Status.FINISHED


# --- Builders -------------------------------------------------------------------------------


def final_score(heist: Heist, nights: Sequence[HeistNight]) -> dict[str, Any]:
    played = [n for n in nights if n.result is not None]
    score = played[-1].result["score"] if played else {PLAYER: 0, RIVAL: 0}
    return {"outcome": heist.outcome, "player": score[PLAYER], "rival": score[RIVAL]}


def _nights(nights: Sequence[HeistNight]) -> list[dict[str, Any]]:
    return [night_data(n) for n in nights if n.result is not None]


def handle_or_neutral(handle: str | None) -> str:
    return handle or NEUTRAL_HANDLE


def challenge_answer_data(
    challenge: Challenge,
    *,
    owner: Owner,
    handle: str | None,
    answer: Heist | None,
    answers: Sequence[Heist],
    nights: dict[Any, list[HeistNight]],
) -> dict[str, Any]:
    """The challenge as ``owner`` may see it. ``nights`` holds the stored nights of the heists
    that may be shown (the caller loads them for those :func:`shown_heists` names only)."""
    original = challenge.heist
    challenger = owner.owns(original)
    revealed = original_revealed(challenger=challenger, answer=answer)
    you = None
    if answer is not None:
        last = getattr(answer, "last_score", None) or {}
        you = {"heist": answer.pk, "status": answer.status, "score": last.get(PLAYER, 0)}
    rows = None
    if challenger:
        rows = []
        for heist in answers:
            shown = answer_revealed(heist)
            rows.append(
                {
                    "heist": heist.pk,
                    "player": handle_or_neutral(getattr(heist, "handle", None)),
                    "status": heist.status,
                    "score": final_score(heist, nights[heist.pk]) if shown else None,
                    "nights": _nights(nights[heist.pk]) if shown else None,
                }
            )
    return {
        "slug": challenge.slug,
        "rival": original.rival,
        "difficulty": original.difficulty,
        "encounter": encounter_data(original.encounter) if original.encounter else None,
        "deck": list(original.player_deck),
        "from": handle_or_neutral(handle),
        "score": final_score(original, nights[original.pk]) if revealed else None,
        "nights": _nights(nights[original.pk]) if revealed else None,
        "you": you,
        "challenger": challenger,
        "answers": rows,
    }


def shown_heists(
    challenge: Challenge, *, owner: Owner, answer: Heist | None, answers: Sequence[Heist]
) -> list[Heist]:
    """The heists whose nights ``owner`` may see on the challenge (the only ones to load)."""
    challenger = owner.owns(challenge.heist)
    shown = []
    if original_revealed(challenger=challenger, answer=answer):
        shown.append(challenge.heist)
    if challenger:
        shown += [h for h in answers if answer_revealed(h)]
    return shown


def challenge_parts(challenge: Challenge, owner: Owner) -> dict[str, Any]:
    """What :func:`challenge_answer_data` needs for ``owner``, read from the database: the
    nights of the heists :func:`shown_heists` names, and of no other."""
    answer = challenge_selectors.challenge_answer(challenge=challenge, owner=owner)
    challenger = owner.owns(challenge.heist)
    answers = challenge_selectors.challenge_answers(challenge=challenge) if challenger else []
    shown = shown_heists(challenge, owner=owner, answer=answer, answers=answers)
    return {
        "owner": owner,
        "handle": challenge_selectors.challenger_handle(challenge),
        "answer": answer,
        "answers": answers,
        "nights": {h.pk: heist_nights(h) for h in shown},
    }


def challenge_answer(challenge: Challenge, **parts: Any) -> dict[str, Any]:
    """``GET /api/v1/challenges/{slug}/``'s answer (parts as :func:`challenge_answer_data`)."""
    return present(ChallengeSerializer, challenge_answer_data(challenge, **parts))


def challenge_made(challenge: Challenge, url: str) -> dict[str, Any]:
    return present(ChallengeMadeSerializer, {"slug": challenge.slug, "url": url})
