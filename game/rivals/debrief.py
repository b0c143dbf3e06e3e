"""The heist debrief: night by night, what the player could have done better with what they
could see then (DESIGN.md section 10).

Everything is worked out from the player's own observations (``observe(state, PLAYER)`` at the
start of each night, and at the end), never from the state: the rival's hand, its plan before
the reveal, either deck's order and future loot cannot reach it, so resampling them cannot
change a night's best plan. The rival seat's plans are those Kingpin's own solver gives from the
player's seat (``policy.night_game``, the code Kingpin plays with): the equilibrium of the
night's game over every hand the rival can hold, with the share of its model of this rival
(fitted on the rival's plans revealed so far in the heist) that its trust earns.

The measure of a plan:

* nights before the last two: the expected loot margin (your loot minus the rival's) plus the
  fitted worth of both end Heats (``value.json``), in loot;
* the last two nights: the chance to win the heist (a draw counts half): exact on the last
  night, a logistic in the margin and Heats fitted from self-play on the one before
  (``value.win_chance``). Its loot lost is the chance lost times :data:`WIN_LOOT`, the loot a
  whole win is worth to Kingpin, so the labels mean the same on every night.

Labels by loot lost: ``best`` (0), ``good`` (< 0.5), ``inaccuracy`` (< 1.5), ``mistake`` (< 3),
``blunder`` (3 or more). Accuracy: each night with more than one distinct plan scores
``100 * exp(-loot_lost / 3)`` (100 for the best plan, about 85 for half a loot, 61 for 1.5,
37 for 3) and the heist's accuracy is their mean. Luck: what the rival's revealed plan gave or
took compared with the expectation of yours, in loot (the same scale). The turning point: the
night that moved the chance to win the most, from its start to its end.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from game.engine import text
from game.engine.crew import PLAYER, RIVAL
from game.engine.night import Plan
from game.engine.results import NightResult, VaultResult
from game.engine.rng import Stream
from game.engine.rules import Ruleset
from game.engine.view import Observation
from game.rivals import nightgame, policy, value
from game.rivals.personas import get_difficulty

# The model the debrief scores against: Kingpin's, from the player's seat.
KNOBS = get_difficulty("kingpin").knobs
# Loot a whole win is worth (Kingpin's last-night scale), to put chances lost in loot.
WIN_LOOT = value.WIN_SCALE
# The last this many nights are measured by the chance to win, not loot.
WIN_NIGHTS = 2
# Loot lost at which a night's accuracy falls to 1/e.
ACCURACY_SCALE = 3.0
# Upper bounds of loot lost for each label below ``blunder``.
LABELS: tuple[tuple[str, float], ...] = (
    ("best", 1e-6),
    ("good", 0.5),
    ("inaccuracy", 1.5),
    ("mistake", 3.0),
)
BLUNDER = "blunder"
# The debrief's own random stream (hand sampling when the rival may hold more hands than the
# model's sample), under a fixed public key: it depends on nothing the player could not see.
_STREAM_KEY = hashlib.sha256(b"veyltak/debrief/v1").digest()


def label_for(loot_lost: float) -> str:
    for name, bound in LABELS:
        if loot_lost < bound:
            return name
    return BLUNDER


def night_accuracy(loot_lost: float) -> float:
    return 100.0 * math.exp(-max(0.0, loot_lost) / ACCURACY_SCALE)


Crew = tuple[tuple[str, str], ...]  # (crew slug, vault slug), sorted


@dataclass(frozen=True, slots=True)
class Scored:
    """A plan by crew type, and its expected value in the night's measure."""

    crew: Crew
    boost: bool
    expected: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "crew": [{"crew": c, "vault": v} for c, v in self.crew],
            "boost": self.boost,
            "expected": round(self.expected, 3),
        }


@dataclass(frozen=True, slots=True)
class NightReview:
    night: int
    measure: str  # "loot" (expected loot margin and Heat) or "win" (chance to win the heist)
    choices: int  # distinct legal plans of the player's hand
    yours: Scored
    best: Scored
    loot_lost: float
    label: str
    likely: Scored  # the rival's likeliest plan in the model; ``expected`` is its chance
    luck: float = 0.0  # filled from the reveal


@dataclass(frozen=True, slots=True)
class TurningPoint:
    night: int
    before: float  # chance to win at the start of the night
    after: float  # and at its end
    text: str


@dataclass(frozen=True, slots=True)
class Debrief:
    accuracy: float
    loot_lost: float
    luck: float
    turning_point: TurningPoint
    nights: tuple[NightReview, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "accuracy": round(self.accuracy, 1),
            "loot_lost": round(self.loot_lost, 2),
            "luck": round(self.luck, 2),
            "turning_point": {
                "night": self.turning_point.night,
                "text": self.turning_point.text,
                "before": round(self.turning_point.before, 3),
                "after": round(self.turning_point.after, 3),
            },
            "nights": [
                {
                    "night": r.night,
                    "label": r.label,
                    "loot_lost": round(r.loot_lost, 2),
                    "luck": round(r.luck, 2),
                    "measure": r.measure,
                    "choices": r.choices,
                    "yours": r.yours.to_dict(),
                    "best": r.best.to_dict(),
                    "likely": r.likely.to_dict(),
                }
                for r in self.nights
            ],
        }


def _stream(night: int) -> Stream:
    return Stream(_STREAM_KEY, f"debrief/{night}")


def _slug_plan(obs: Observation, plan: Plan) -> tuple[tuple[tuple[str, int], ...], bool]:
    """``plan`` as the solver lists plans: sorted (crew slug, vault index) pairs and Boost."""
    vidx = {v: i for i, v in enumerate(obs.ruleset.vault_slugs)}
    deck = obs.decklists[obs.side]
    crew = tuple(sorted((deck[c], vidx[v]) for c, v in plan.crew))
    return crew, plan.boost and bool(crew)


def _crew(rs: Ruleset, crew: tuple[tuple[str, int], ...]) -> Crew:
    return tuple(sorted((s, rs.vault_slugs[v]) for s, v in crew))


def _measure(nights_left_after: int) -> str:
    return "win" if nights_left_after < WIN_NIGHTS else "loot"


def _to_loot(measure: str, amount: float) -> float:
    return amount * WIN_LOOT if measure == "win" else amount


def plan_values(game: policy.NightGame) -> np.ndarray:
    """Each (player plan, rival column) outcome in the night's measure."""
    night = game.night
    me = nightgame.side_arrays(night.table_me, [night.mine])
    opp = nightgame.side_arrays(night.table_opp, game.opp_hps)
    nm = nightgame.night_matrices(night.rs, me, opp, night.loot, night.heat_me, night.heat_opp)
    nla = night.nights_left_after
    margin = nm.margin.astype(np.float64)
    if _measure(nla) == "win":
        return value.win_chance(night.diff + margin, nm.heat_me, nm.heat_opp, night.rs, nla)
    worth = value.fitted_heat_worth(night.rs, nla).astype(np.float64)
    return margin + worth[nm.heat_me] - worth[nm.heat_opp]


@dataclass(frozen=True, slots=True)
class NightScores:
    """Every distinct legal plan of the player's hand (``game.night.mine.plans``) and its
    expected value against the rival seat's plans in the model, in the night's ``measure``."""

    game: policy.NightGame
    column_weights: np.ndarray
    expected: np.ndarray
    measure: str

    @property
    def plans(self) -> tuple:
        return self.game.night.mine.plans


def score_plans(obs: Observation) -> NightScores:
    """Score the player's plans from ``obs``, the player's own observation, with Kingpin's
    solver from the player's seat."""
    if obs.finished:
        raise ValueError("a finished heist has no night to review")
    game = policy.night_game(obs, KNOBS, _stream(obs.night))
    cw = game.column_weights()
    return NightScores(game, cw, plan_values(game) @ cw, _measure(game.night.nights_left_after))


def review_night(obs: Observation, plan: Plan) -> NightReview:
    """Score every distinct legal plan of the player's hand in ``obs`` (the player's own
    observation) against the rival seat's plans in Kingpin's model; ``plan`` is the one sealed."""
    scores = score_plans(obs)
    game, cw, ev = scores.game, scores.column_weights, scores.expected
    night = game.night
    plans = night.mine.plans
    yours_i = plans.index(_slug_plan(obs, plan))
    best_i = int(np.argmax(ev))
    if ev[yours_i] >= ev[best_i]:
        best_i = yours_i  # equal to the best: yours is a best plan
    measure = scores.measure
    lost = max(0.0, _to_loot(measure, float(ev[best_i] - ev[yours_i])))
    rs = night.rs

    def scored(i: int) -> Scored:
        crew, boost = plans[i]
        return Scored(_crew(rs, crew), boost, float(ev[i]))

    return NightReview(
        night=obs.night,
        measure=measure,
        choices=len(plans),
        yours=scored(yours_i),
        best=scored(best_i),
        loot_lost=lost,
        label=label_for(lost),
        likely=_likely(game, cw),
    )


def _likely(game: policy.NightGame, cw: np.ndarray) -> Scored:
    """The rival's likeliest plan by crew type, summed over the hands it may hold."""
    rs = game.night.rs
    chance: dict[tuple, float] = {}
    # The hands share most of their plans: each plan's key is made once (a sort of its crew
    # by name), not once per hand; the sums are added in the same order as before.
    keys: dict[tuple, tuple] = {}
    weights = cw.tolist()
    k = 0
    for hp in game.opp_hps:
        for plan in hp.plans:
            key = keys.get(plan)
            if key is None:
                crew, boost = plan
                key = keys[plan] = (_crew(rs, crew), bool(boost and crew))
            chance[key] = chance.get(key, 0.0) + weights[k]
            k += 1
    (crew, boost), p = max(chance.items(), key=lambda kv: (kv[1], kv[0]))
    return Scored(crew, boost, p)


def _diff_heats(obs: Observation) -> tuple[int, int, int]:
    me, opp = obs.side, obs.opponent
    return obs.score[me] - obs.score[opp], obs.heat[me], obs.heat[opp]


def chance_to_win(obs: Observation) -> float:
    """The player's chance to win from ``obs`` (at the start of a night, or the end)."""
    d, hm, ho = _diff_heats(obs)
    left = 0 if obs.finished else obs.nights - obs.night + 1
    return float(value.win_chance(np.float64(d), hm, ho, obs.ruleset, left))


def luck_of(review: NightReview, before: Observation, result: NightResult) -> float:
    """What the rival's revealed plan gave (+) or took (-) compared with the expectation of
    the player's own plan, in loot."""
    me, opp = before.side, before.opponent
    d_before = before.score[me] - before.score[opp]
    d_after = result.score[me] - result.score[opp]
    hm, ho = result.side(me).heat_end, result.side(opp).heat_end
    nla = before.nights - before.night
    if review.measure == "win":
        actual = float(value.win_chance(np.float64(d_after), hm, ho, before.ruleset, nla))
    else:
        worth = value.fitted_heat_worth(before.ruleset, nla)
        actual = float(d_after - d_before + worth[hm] - worth[ho])
    return _to_loot(review.measure, actual - review.yours.expected)


def debrief(observations: Sequence[Observation]) -> Debrief:
    """The debrief of a finished heist from the player's observations: one at the start of each
    night played (in order; a practice retry starts at a later night) and one at the end."""
    if len(observations) < 2 or not observations[-1].finished:
        raise ValueError("a debrief needs the observation of each night and of the end")
    if any(o.side != PLAYER for o in observations):
        raise ValueError("a debrief reads the player's observations only")
    final = observations[-1]
    reviews = []
    swings = []
    for obs, nxt in itertools.pairwise(observations):
        result = final.history[obs.night - 1]
        review = review_night(obs, Plan(*result.plan(PLAYER)))
        luck = luck_of(review, obs, result)
        reviews.append(dataclasses.replace(review, luck=luck))
        swings.append((obs.night, chance_to_win(obs), chance_to_win(nxt)))
    counted = [r.loot_lost for r in reviews if r.choices > 1]
    accuracy = float(np.mean([night_accuracy(x) for x in counted])) if counted else 100.0
    night, before, after = max(swings, key=lambda s: (abs(s[2] - s[1]), -s[0]))
    turning = TurningPoint(
        night, before, after, turn_text(final.ruleset, final.history[night - 1], before, after)
    )
    return Debrief(
        accuracy=accuracy,
        loot_lost=float(sum(r.loot_lost for r in reviews)),
        luck=float(sum(r.luck for r in reviews)),
        turning_point=turning,
        nights=tuple(reviews),
    )


# --- words --------------------------------------------------------------------------------------
# The sentences are put together from the engine's own words: crew and vault names from the
# ruleset, bonus reasons from the reveal's breakdown (text.CONDITIONS, as the replay shows them).


def percent(p: float) -> str:
    return f"{round(100 * p)}%"


def signed(x: float) -> str:
    """ "+1.2", "-0.4", and "0.0" rather than "-0.0"."""
    return "0.0" if abs(x) < 0.05 else f"{x:+.1f}"


def _names(rs: Ruleset, slugs: Sequence[str]) -> str:
    names = [rs.crew[s].name for s in slugs]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def crew_words(rs: Ruleset, crew: Crew, boost: bool) -> str:
    """ "Spark to Crown Vault and Fence to Signal Tower with Boost", or "nobody"."""
    if not crew:
        return "nobody"
    by_vault: dict[str, list[str]] = {}
    for slug, vault in crew:
        by_vault.setdefault(vault, []).append(slug)
    parts = [
        f"{_names(rs, slugs)} to {rs.vault_name(vault)}"
        for vault, slugs in sorted(by_vault.items(), key=lambda kv: rs.vault_slugs.index(kv[0]))
    ]
    return " and ".join(parts) + (" with Boost" if boost else "")


def plan_words(rs: Ruleset, crew: Crew, boost: bool, *, who: str = "you") -> str:
    """ "you sent Spark to Crown Vault and Fence to Signal Tower with Boost"."""
    return f"{who} sent {crew_words(rs, crew, boost)}"


def _bonuses(rs: Ruleset, result: NightResult, side: str, vault: str) -> list[str]:
    reasons = text.rival_side_reasons(rs) if side == RIVAL else {}
    found: dict[str, int] = {}
    for crew in result.side(side).crew:
        if crew.vault != vault:
            continue
        for part in crew.breakdown:
            if part.kind == "bonus":
                why = reasons.get(part.reason, part.reason.split(": ", 1)[-1])
                said = f"{rs.crew[crew.crew].name} {part.amount:+d}{{each}}: {why}"
                found[said] = found.get(said, 0) + 1
    # Two of one crew with the same bonus are said once.
    return [said.format(each=" each" if n > 1 else "") for said, n in found.items()]


def _took(rs: Ruleset, result: NightResult, vr: VaultResult) -> str:
    side = vr.winner
    slugs = [c.crew for c in result.side(side).crew if c.vault == vr.slug]
    mine, theirs = vr.power(side), vr.power(PLAYER if side == RIVAL else RIVAL)
    owner, other = ("your", "its") if side == PLAYER else ("its", "your")
    bonus = _bonuses(rs, result, side, vr.slug)
    return (
        f"{owner} {_names(rs, slugs)} took {rs.vault_name(vr.slug)}'s {vr.loot} Loot, "
        f"{mine} Power to {other} {theirs}" + (f" ({'; '.join(bonus)})" if bonus else "")
    )


def turn_text(rs: Ruleset, result: NightResult, before: float, after: float) -> str:
    """The turning point in one sentence: what the player sent, the vault that swung it (the
    richest one the side that gained took), and the chance to win before and after."""
    gained = PLAYER if after >= before else RIVAL
    sent = plan_words(rs, *_result_plan(result, PLAYER))
    won = [v for v in result.vaults if v.winner == gained and not v.closed]
    if won:
        vault = max(won, key=lambda v: (v.loot, -rs.vault_slugs.index(v.slug)))
        what = _took(rs, result, vault)
    else:
        what = "no vault went to " + ("you" if gained == PLAYER else "the rival")
    return (
        f"Night {result.night}: {sent}; {what}. "
        f"Your chance to win went from {percent(before)} to {percent(after)}."
    )


def _result_plan(result: NightResult, side: str) -> tuple[Crew, bool]:
    sr = result.side(side)
    return tuple(sorted((c.crew, c.vault) for c in sr.crew)), sr.boost


def why_text(rs: Ruleset, review: NightReview) -> str:
    """Why the best plan is best, in the night's measure: the rival's likeliest plan in the
    model, and what the best plan and yours expect against the whole spread of its plans."""
    likely = crew_words(rs, review.likely.crew, review.likely.boost)
    head = f"The rival's likeliest plan: {likely} ({percent(review.likely.expected)})."

    def worth(s: Scored) -> str:
        if review.measure == "win":
            return f"wins {percent(s.expected)} of the time"
        return f"expects {signed(s.expected)} Loot against it"

    if review.label == "best":
        return f"{head} Against all its plans yours was a best plan: it {worth(review.yours)}."
    return (
        f"{head} Against all its plans the best {worth(review.best)}; yours {worth(review.yours)}."
    )
