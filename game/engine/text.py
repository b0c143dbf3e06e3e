"""Every player-facing word of the rules, in one table (pure: no Django).

The engine's conditions and errors carry a code and their parameters; this module turns them
into English. Pages, the board (static/js/board.js reads the templates the page hands it) and the
rules page take their sentences from here and their numbers from the ruleset, never their own
copies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .rules import Ruleset

# --- Encounters --------------------------------------------------------------------------------

_SIDE_STARTS = {"player": "You start", "you": "You start", "rival": "The rival starts"}
_VAULT_MOD = {
    "fixed": "{vault}: loot is fixed at {amount} on {when}.",
    "raise": "{vault}: loot is raised by {amount} on {when}.",
    "double": "{vault}: loot is doubled on {when}.",
    "closed": "{vault} is closed on {when}: no crew may be sent there.",
}


def nights_phrase(nights: list[int]) -> str:
    nights = sorted(nights)
    if not nights:
        return "no night"
    if len(nights) > 2 and nights == list(range(nights[0], nights[-1] + 1)):
        return f"nights {nights[0]} to {nights[-1]}"
    if len(nights) == 1:
        return f"night {nights[0]}"
    return "nights " + ", ".join(str(n) for n in nights[:-1]) + f" and {nights[-1]}"


def encounter_lines(modifiers: Mapping[str, Any] | None, ruleset: Ruleset) -> list[str]:
    """An encounter's modifiers in full, as sentences (RULES.md: disclosed before play)."""
    if not modifiers:
        return []
    lines = []
    for side, heat in (modifiers.get("start_heat") or {}).items():
        who = _SIDE_STARTS.get(side, side)
        lines.append(f"{who} at Heat {heat} (Energy {ruleset.energy_at(heat)}).")
    names = {v.slug: v.name for v in ruleset.vaults}
    for mod in modifiers.get("vault_mods") or []:
        vault = names.get(mod.get("vault"), mod.get("vault"))
        when = nights_phrase(mod.get("nights") or [])
        kind, amount = mod.get("kind"), mod.get("amount", 0)
        template = _VAULT_MOD.get(kind, "{vault}: {kind} {amount} on {when}.")
        lines.append(template.format(vault=vault, amount=amount, when=when, kind=kind))
    return lines
