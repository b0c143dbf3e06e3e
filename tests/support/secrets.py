"""What the secrets scanner checks (tests/game/test_secrets.py and the challenge tests): each
answer against what the server knows when it is sent. Nothing hidden leaves early: no rival
nonce before its reveal, no server seed (or heist key) before the end, no field that could carry
the rival's hand or either deck's order, no future night's loot; every JSON path of a heist view
on an allow-list, and each field that could hold a secret holding exactly the public truth.

:class:`OtherHeistScanner` checks what a player is sent about the *other* heist of a challenge
(the challenger's, for a friend; a friend's, for the challenger) while it is hidden from them.
"""

from __future__ import annotations

import json

from game.engine import PLAYER, RIVAL
from game.engine.setup import night_loot
from game.models import Heist
from game.rivals.personas import get_persona
from game.selectors.heists import heist_nights, heist_state

VAULTS = ("memory-archive", "crown-vault", "signal-tower")

_RESULT = {
    "night", "loot", "loot.{vault}", "closed", "closed[]",
    "you", "you.heat_start", "you.heat_end", "you.boost", "you.crew", "you.crew[]",
    "you.heat_parts", "you.heat_parts[]", "you.heat_parts[].kind", "you.heat_parts[].amount",
    "you.heat_parts[].reason",
    "rival.heat_parts", "rival.heat_parts[]", "rival.heat_parts[].kind",
    "rival.heat_parts[].amount", "rival.heat_parts[].reason",
    "you.crew[].card", "you.crew[].crew", "you.crew[].vault", "you.crew[].power",
    "you.crew[].breakdown", "you.crew[].breakdown[]", "you.crew[].breakdown[].kind",
    "you.crew[].breakdown[].amount", "you.crew[].breakdown[].reason",
    "rival", "rival.heat_start", "rival.heat_end", "rival.boost", "rival.crew", "rival.crew[]",
    "rival.crew[].crew", "rival.crew[].vault", "rival.crew[].power",
    "rival.crew[].breakdown", "rival.crew[].breakdown[]", "rival.crew[].breakdown[].kind",
    "rival.crew[].breakdown[].amount", "rival.crew[].breakdown[].reason",
    "rival.nonce", "rival.commitment",
    "vaults", "vaults[]", "vaults[].slug", "vaults[].you_power", "vaults[].rival_power",
    "vaults[].winner", "vaults[].loot",
    "score", "score.you", "score.rival",
}  # fmt: skip
_ENCOUNTER = {
    "slug", "name", "description", "modifiers", "modifiers.start_heat",
    "modifiers.start_heat.player", "modifiers.start_heat.rival", "modifiers.vault_mods",
    "modifiers.vault_mods[]", "modifiers.vault_mods[].vault", "modifiers.vault_mods[].nights",
    "modifiers.vault_mods[].nights[]", "modifiers.vault_mods[].kind",
    "modifiers.vault_mods[].amount",
}  # fmt: skip
VIEW_PATHS = {
    "id", "ruleset", "status", "night", "nights", "phase",
    "vaults", "vaults[]", "vaults[].slug", "vaults[].name", "vaults[].loot", "vaults[].closed",
    "you", "you.heat", "you.energy", "you.score", "you.hand", "you.hand[]", "you.hand[].card",
    "you.hand[].crew", "you.deck_count", "you.discard", "you.discard[]", "you.deck",
    "you.deck[]",
    "you.cosmetics", *(f"you.cosmetics.{k}" for k in ("card_back", "board_theme", "title")),
    "rival", "rival.slug", "rival.name", "rival.difficulty", "rival.heat", "rival.energy",
    "rival.score", "rival.hand_count", "rival.deck_count", "rival.discard", "rival.discard[]",
    "rival.deck", "rival.deck[]", "rival.commitment",
    "rival.cosmetics", *(f"rival.cosmetics.{k}" for k in ("card_back", "board_theme", "title")),
    "encounter", *(f"encounter.{p}" for p in _ENCOUNTER),
    "seed_commitment", "featured", "ranked",
    "history", "history[]", *(f"history[].{p}" for p in _RESULT),
    "result", "result.outcome", "result.you", "result.rival", "result.signs_awarded",
    "result.featured_bonus",
    "practice_of", "practice_of.heist", "practice_of.night", "practice_of.then",
    "practice_of.then.outcome", "practice_of.then.you", "practice_of.then.rival",
    "practice_of.compared", "challenge",
}  # fmt: skip
SEAL_PATHS = {"result", *(f"result.{p}" for p in _RESULT), "heist"} | {
    f"heist.{p}" for p in VIEW_PATHS
}


def _expand(paths: set[str]) -> set[str]:
    return {p.replace("{vault}", v) for p in paths for v in VAULTS}


VIEW_PATHS, SEAL_PATHS = _expand(VIEW_PATHS), _expand(SEAL_PATHS)


def json_paths(value, prefix: str = "") -> set[str]:
    out = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            out.add(path)
            out |= json_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            out.add(f"{prefix}[]")
            out |= json_paths(item, f"{prefix}[]")
    return out


def _loot_dicts(value) -> list[dict]:
    if isinstance(value, dict):
        found = [value] if set(value) == set(VAULTS) else []
        for item in value.values():
            found += _loot_dicts(item)
        return found
    if isinstance(value, list):
        return [d for item in value for d in _loot_dicts(item)]
    return []


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"))


class Scanner:
    """Checks one response against what the server knows at the moment it was sent."""

    def __init__(self) -> None:
        self.responses = 0

    def check(self, response, heist_id: str) -> None:
        self.responses += 1
        body = response.content.decode()
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        headers += "\n" + response.cookies.output()
        text = body + "\n" + headers
        heist = Heist.objects.get(pk=heist_id)
        nights = heist_nights(heist)
        state = heist_state(heist, nights)

        # The server seed and the heist key: nowhere, in the body or the headers.
        assert heist.server_seed not in text
        assert state.key.hex() not in text
        # A sealed, unplayed night's nonce: nowhere.
        for night in nights:
            if night.rival_nonce and night.result is None:
                assert night.rival_nonce not in text, f"nonce of night {night.night} leaked"
        data = response.json()
        # Future loot: every loot-shaped object is a night already disclosed; and a future
        # night's loot that differs from every disclosed night appears nowhere.
        disclosed = [n.loot for n in nights]
        for found in _loot_dicts(data):
            assert found in disclosed
        for future in range(state.night + 1, state.ruleset.nights + 1):
            loot, _ = night_loot(state.ruleset, state.key, future, state.encounter)
            if loot not in disclosed:
                assert loot not in _loot_dicts(data)
                assert _compact(loot) not in body

        if "result" in data and "heist" in data:
            assert json_paths(data) <= SEAL_PATHS, json_paths(data) - SEAL_PATHS
            view = data["heist"]
        else:
            assert json_paths(data) <= VIEW_PATHS, json_paths(data) - VIEW_PATHS
            view = data
        self._check_view(view, heist, nights, state)

    def _check_view(self, view, heist, nights, state) -> None:
        rival, you = view["rival"], view["you"]
        truth_r, truth_p = state.side(RIVAL), state.side(PLAYER)
        # The decklists are the public ones, never a draw order.
        assert rival["deck"] == list(get_persona(heist.rival).deck) == list(truth_r.decklist)
        assert you["deck"] == list(truth_p.decklist)
        assert rival["discard"] == list(truth_r.discard_slugs())
        assert you["discard"] == list(truth_p.discard_slugs())
        assert rival["hand_count"] == len(truth_r.hand)
        assert rival["deck_count"] == len(truth_r.deck)
        assert you["hand"] == [{"card": c, "crew": truth_p.decklist[c]} for c in truth_p.hand]
        # This night's loot only.
        current = next((n for n in nights if n.night == heist.night), None)
        if heist.status == "active":
            assert current is not None
            assert {v["slug"]: v["loot"] for v in view["vaults"]} == current.loot
        else:
            assert all(v["loot"] == 0 for v in view["vaults"]) or heist.status == "abandoned"
        # The rival's commitment is for this night's sealed plan, and nothing else of it shows.
        sealed = current.rival_commitment if current and heist.status == "active" else None
        assert rival["commitment"] == sealed


# --- Challenges -----------------------------------------------------------------------------

_ENCOUNTER_PATHS = {"encounter", *(f"encounter.{p}" for p in _ENCOUNTER)}
# Everything a challenge's answer may hold while the viewer's own heist of it is unfinished:
# what the link promised and the viewer's own heist; the challenger's score and nights null.
CHALLENGE_BEFORE = {
    "slug", "rival", "difficulty", *_ENCOUNTER_PATHS, "deck", "deck[]", "from", "score",
    "nights", "you", "you.heist", "you.status", "you.score", "challenger", "answers",
}  # fmt: skip
# Its challenger's, while no friend has finished: their own score and nights, and each friend's
# heist, handle and status, with its score and nights null.
CHALLENGER_BEFORE = CHALLENGE_BEFORE | {
    "score.outcome", "score.player", "score.rival", "nights[]",
    *(f"nights[].{p}" for p in _RESULT),
    "answers[]", "answers[].heist", "answers[].player", "answers[].status", "answers[].score",
    "answers[].nights",
}  # fmt: skip
CHALLENGE_BEFORE, CHALLENGER_BEFORE = _expand(CHALLENGE_BEFORE), _expand(CHALLENGER_BEFORE)


def challenge_shown_before_the_end(data: dict, *, challenger: bool) -> None:
    """A challenge's answer shows exactly what it may before the other heist is revealed: the
    paths on the list (the viewer's own ``you`` only once they play), and null where the other
    heist would be."""
    paths = json_paths(data)
    if challenger:
        assert paths <= CHALLENGER_BEFORE, paths - CHALLENGER_BEFORE
        assert data["challenger"] is True and data["you"] is None
        for answer in data["answers"]:
            if answer["status"] != "finished":
                assert answer["score"] is None and answer["nights"] is None, answer
        return
    assert paths <= CHALLENGE_BEFORE, paths - CHALLENGE_BEFORE
    assert data["score"] is None and data["nights"] is None and data["answers"] is None
    assert data["challenger"] is False
    assert {k for k, v in data.items() if v is not None} <= {
        "slug", "rival", "difficulty", "encounter", "deck", "from", "you", "challenger",
    }  # fmt: skip


class OtherHeistScanner:
    """Checks that one answer or page carries nothing of ``hidden``, the other heist of a
    challenge, while it is hidden from the viewer: none of its rival nonces or commitments (each
    night's plan proof), no night result, and unless the viewer may know them its id and its
    server seed (a friend's seed is the challenger's own: ``seed_known``). Pages: no side-by-side
    rows and no link to them."""

    def __init__(self) -> None:
        self.responses = 0

    def check(
        self, response, hidden: Heist, *, seed_known: bool = False, id_known: bool = False
    ) -> None:
        self.responses += 1
        body = response.content.decode()
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
        text = body + "\n" + headers + "\n" + response.cookies.output()
        if not seed_known:
            assert hidden.server_seed not in text
        if not id_known:
            assert str(hidden.pk) not in text
        assert heist_state(hidden, heist_nights(hidden)).key.hex() not in text or seed_known
        for night in heist_nights(hidden):
            for proof in (night.rival_nonce, night.rival_commitment):
                if proof:
                    assert proof not in text, f"night {night.night} of the other heist"
        if not response.get("Content-Type", "").startswith("application/json"):
            # A page: no night of the two side by side, no way to them (one friend per test).
            assert "cmp-night" not in body and "/vs/" not in body
