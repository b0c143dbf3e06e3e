"""What the rival believes about the hand it cannot see.

Everything here starts from an Observation: the opponent's decklist and discard pile are public,
so the cards that may be in its hand are its decklist minus its discard pile, and (the deck being
shuffled by the heist's generator) every ``hand_count``-subset of those cards is equally likely
before any play is taken into account. Hands are handled as sorted tuples of crew slugs: two
copies of one crew type are interchangeable for the rules.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations
from math import comb

from game.engine.rng import Stream
from game.engine.view import Observation

Hand = tuple[str, ...]


def unseen_pool(obs: Observation) -> tuple[tuple[str, int], ...]:
    """The opponent's cards not in its public discard pile (its hand and deck), by type."""
    opp = obs.opponent
    pool = Counter(obs.decklists[opp])
    pool.subtract(Counter(obs.discard[opp]))
    return tuple(sorted((s, n) for s, n in pool.items() if n > 0))


@lru_cache(maxsize=4096)
def hand_distribution(pool: tuple[tuple[str, int], ...], k: int) -> tuple[tuple[Hand, float], ...]:
    """Every distinct hand of ``k`` cards drawn without replacement from ``pool``, with its
    exact (multivariate hypergeometric) probability, most likely first."""
    total = sum(n for _, n in pool)
    k = min(k, total)
    if k <= 0:
        return (((), 1.0),)
    denom = comb(total, k)
    out = []
    types = [s for s, _ in pool]
    counts = dict(pool)
    for picked in set(combinations([s for s, n in pool for _ in range(n)], k)):
        c = Counter(picked)
        ways = 1
        for s in types:
            ways *= comb(counts[s], c.get(s, 0))
        out.append((tuple(sorted(picked)), ways / denom))
    out.sort(key=lambda hp: (-hp[1], hp[0]))
    return tuple(out)


def draw_unit(stream: Stream) -> float:
    """A uniform float in [0, 1) from the policy's own stream (30 bits)."""
    return stream.randbelow(1 << 30) / float(1 << 30)


def sample_hands(
    dist: tuple[tuple[Hand, float], ...], k: int, stream: Stream
) -> tuple[list[Hand], list[float]]:
    """The exact distribution when it has at most ``k`` hands; otherwise ``k`` draws from it
    (with the stream), merged into weights."""
    if len(dist) <= k:
        return [h for h, _ in dist], [p for _, p in dist]
    cum = []
    acc = 0.0
    for _, p in dist:
        acc += p
        cum.append(acc)
    counts: Counter[int] = Counter()
    for _ in range(k):
        u = draw_unit(stream) * acc
        lo, hi = 0, len(cum) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        counts[lo] += 1
    idx = sorted(counts)
    return [dist[i][0] for i in idx], [counts[i] / k for i in idx]


# Temperature of the soft model of the opponent used to read its last plan (power-weighted loot).
READ_TEMPERATURE = 3.0


def _subtract(pool: tuple[tuple[str, int], ...], hand: Hand) -> tuple[tuple[str, int], ...]:
    c = Counter(dict(pool))
    c.subtract(Counter(hand))
    return tuple(sorted((s, n) for s, n in c.items() if n > 0))


def reweight_by_last_play(
    obs: Observation, dist: tuple[tuple[Hand, float], ...]
) -> tuple[tuple[Hand, float], ...]:
    """Bayes' rule on the opponent's last revealed plan.

    The cards it kept last night are still in its hand. Under a soft model of the opponent
    (softmax over power-weighted loot, as if we sent nobody) a kept set K is likelier when the plan
    it revealed was a good plan for the hand K + played. The current hand is K plus cards drawn
    uniformly from the rest of the unseen pool.
    """
    if not obs.history:
        return dist
    from game.rivals import nightgame  # local: nightgame imports nothing from here

    rs = obs.ruleset
    opp = obs.opponent
    last = obs.history[-1]
    side_res = last.player if opp == "player" else last.rival
    me_res = last.rival if opp == "player" else last.player
    played = tuple(sorted(c.crew for c in side_res.crew))
    k_now = obs.hand_count[opp]
    k_keep = min(rs.hand_size - len(played), k_now)
    if k_keep <= 0:
        return dist
    pool = unseen_pool(obs)
    prev_winners = obs.history[-2].vaults if len(obs.history) >= 2 else ()
    lw: dict[str, str | None] = {}
    for vr in prev_winners:
        lw[vr.slug] = None if vr.winner is None else ("me" if vr.winner == opp else "opp")
    rel = tuple(
        None if lw.get(v) is None else (nightgame.ME if lw[v] == "me" else nightgame.OPP)
        for v in rs.vault_slugs
    )
    closed = frozenset(last.closed)
    slugs = tuple(sorted(set(obs.decklists[opp])))
    table = nightgame.crew_table(
        rs.version,
        slugs,
        side_res.heat_start,
        me_res.heat_start,
        rel,
        closed,
        night=last.night,
        loot=nightgame.night_loot(rs, last.loot),
    )
    vidx = {v: i for i, v in enumerate(rs.vault_slugs)}
    seen = (tuple(sorted((c.crew, vidx[c.vault]) for c in side_res.crew)), side_res.boost)
    loot = [0.0 if v in closed else float(last.loot.get(v, 0)) for v in rs.vault_slugs]
    energy = rs.energy_by_heat[side_res.heat_start]
    boost_ok = side_res.heat_start < rs.boost_lock_heat
    post: dict[Hand, float] = {}
    import numpy as np

    loot_a = np.asarray(loot, dtype=np.float32)
    for kept, prior in hand_distribution(pool, k_keep):
        prev = tuple(sorted(kept + played))
        hp = nightgame.hand_plans(rs.version, prev, slugs, energy, boost_ok, closed)
        try:
            idx = hp.plans.index(seen)
        except ValueError:
            continue  # that hand could not have made that plan
        arr = nightgame.side_arrays(table, [hp])
        score = arr.power[:, 0, :].astype(np.float32) @ loot_a
        z = np.exp((score - score.max()) / READ_TEMPERATURE)
        like = float(z[idx] / z.sum())
        rest = _subtract(pool, kept)
        for drawn, p in hand_distribution(rest, k_now - k_keep):
            h = tuple(sorted(kept + drawn))
            post[h] = post.get(h, 0.0) + prior * like * p
    total = sum(post.values())
    if total <= 0:
        return dist
    # Temper with the uninformed prior so a wrong model of the opponent costs little.
    mixed: dict[Hand, float] = {h: 0.5 * p for h, p in dist}
    for h, p in post.items():
        mixed[h] = mixed.get(h, 0.0) + 0.5 * p / total
    out = sorted(mixed.items(), key=lambda hp: (-hp[1], hp[0]))
    return tuple(out)
