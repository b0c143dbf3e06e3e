"""What the heist board's page hands static/js/board.js beyond the ruleset's numbers and names
(``pages.board_rules``): the board's words, the symbols its art sprite holds, and its modules.

The words are templates: the ruleset's numbers are filled in here, the night's (``{heat}``,
``{name}``, ``{vault}``...) by the board, which has no sentence of its own. A term the board uses
("stay quiet", Heat, Energy...) is defined in ``GLOSSARY``, shown where the term appears.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Mapping
from functools import cache
from typing import Any

from django.contrib.staticfiles import finders

from game.engine import Ruleset, text
from game.presenters import words

SPRITE = "images/board.svg"
MODULES = "js/board"
_SYMBOL = re.compile(r'<symbol\s+id="([a-z0-9-]+)"')

# --- The board's words ----------------------------------------------------------------------
# key -> template. {braces} are filled: the ruleset's numbers here, the night's on the board.
WORDS: Mapping[str, str] = {
    # The engine's refusals, heard before sealing.
    "boost_help": "+{boost_power} Power to each crew you send, +{boost_heat} Heat.",
    "boost_on": "Boost on: +{boost_power} Power to each crew you send, +{boost_heat} Heat.",
    "boost_locked": "Boost is locked: your Heat is {heat}.",
    "boost_without_crew": "Send at least one crew to Boost.",
    "over_energy": "Over Energy by {over}: take a crew back.",
    "too_many_crew": "Send at most {max_crew} crew.",
    "crew_limit": "You can send at most {max_crew} crew a night. Take one back first.",
    "vault_closed": "{vault} is closed tonight: no crew may be sent there.",
    # The top line and the night tracker.
    "dot_played": "Night {n}: see it again",
    "dot_now": "Night {n}: tonight",
    "dot_later": "Night {n}: still to come",
    "dot_seen": "Night {n}: on the board now",
    "encounter": "Encounter: {name}",
    "night_short": "N{n}",
    "nights_short": "N{first}–{last}",
    # The two sides.
    "you": "You",
    "score": "Score",
    "heat": "Heat",
    "energy": "Energy",
    "heat_value": "{heat} of {heat_max}",
    "boost_locked_short": "Boost locked",
    "rival_planning": "Planning…",
    "rival_planning_sr": " its move",
    "rival_locked": "Locked in",
    "rival_locked_sr": ": the rival has sealed its plan",
    "rival_over": "Heist over",
    "rival_hand": "{name}'s hand: {n} cards, face down",
    "your_pile": "Your deck: {n} cards left, and your discard",
    "rival_pile": "{name}'s deck: {n} cards left, and its discard",
    # The vaults.
    "loot": "Loot",
    "closed": "Closed",
    "last_yours": "Last night: yours",
    "last_rivals": "Last night: rival's",
    "send_to": "Send to {vault}",
    "vault_night": "{vault}: each crew's Power",
    "power": "Power",
    "maybe": "{amount}?",
    "maybe_long": "{amount}? if {reason}",
    "maybe_note": "{name}'s {amount} holds only if {reason}.",
    "your_crew_here": "Your crew here: {names}",
    "no_crew_here": "No crew of yours here",
    # The hand.
    "cost": "Cost",
    "sent_to": "Sent to {vault}",
    "needs": "Needs {cost} Energy, {left} left",
    "crew_full": "Crew full tonight",
    "no_cards": "No cards in hand.",
    "card_detail": "{name}. Cost {cost} Energy, Power {power}. {text}",
    "vault_detail": "{vault}: {loot} Loot tonight.",
    "vault_closed_detail": "{vault} is closed tonight.",
    # The note line while planning.
    "note_start": "Tap a crew card, then a vault.",
    "note_pick_vault": "Now tap a vault for {name}.",
    "note_full": "Crew full: seal, or tap a sent card to take it back.",
    "note_more": "Send another crew, or seal. Tap a sent card to take it back.",
    "taken_back": "{name} taken back from {vault}. Energy left {left}.",
    "put_down": "{name} put down.",
    "card_put_down": "Card put down.",
    "needs_energy": "{name} needs {cost} Energy; you have {left} left.",
    "picked": "{name} picked. Now choose a vault.",
    "pick_first": "Pick a crew card first, then {vault}.",
    "goes_to": "{name} goes to {vault}. Energy left {left}.",
    "boost_off": "Boost off.",
    "still_planning": "Still planning: tap a crew card, then a vault.",
    # The controls.
    "energy_left": "Energy left",
    "of_energy": " of {energy}",
    "crew_count": "Crew {n}/{max_crew}",
    "on": "On",
    "off": "Off",
    "locked": "Locked",
    "seal": "Seal night {night}",
    "sealing": "Sealing…",
    "sealing_wait": "Sealing… waiting for the rival",
    "tomorrow": "Tomorrow: Energy {energy} (Heat {heat})",
    "tomorrow_with": "; with Boost: Energy {energy} (Heat {heat})",
    "tomorrow_without": "; without Boost: Energy {energy} (Heat {heat})",
    "last_night": "The last night of the heist.",
    "sealed_sr": "Plan sealed for night {night}. Revealing…",
    "waiting_rival": "Waiting for the rival to seal its plan…",
    "rival_slow": "The rival is slow to seal its plan tonight. Try sealing again in a moment.",
    "moved_on": "The heist has moved on.",
    "reloading": "{message} Loading the heist again.",
    "network": "The connection dropped. Check your network and try again.",
    "error": "Something went wrong.",
    "rival_sealed_sr": "The rival has sealed its plan.",
    "night_sr": "Night {night} of {nights}. Tonight's loot: {vaults}.",
    "lie_low_text": "You have sent no crew: sealing now takes no vault tonight, and your Heat "
    "cools {quiet_cooling}.",
    # The reveal, on the vaults.
    "reveal_title": "Night {night} revealed",
    "recap_title": "Night {night}, played",
    "revealing": "Turning over {vault}…",
    "skip": "Skip ahead",
    "next": "Next: night {night}",
    "result": "See the result",
    "back_to": "Back to night {night}",
    "recap_hint": "Tap a vault for each crew's Power.",
    "won_you": "✓ You +{loot}",
    "won_rival": "✗ Rival +{loot}",
    "won_you_long": "✓ You take {loot} Loot",
    "won_rival_long": "✗ The rival takes {loot} Loot",
    "tie": "= Tie",
    "tie_long": "= Tie: nobody takes the Loot",
    "nobody": "= Nobody came",
    "nobody_long": "= Nobody came: no Loot taken",
    "closed_tonight": "= Closed that night",
    "you_boosted": "You Boosted.",
    "you_quiet": "You stayed quiet.",
    "rival_boosted": "The rival Boosted.",
    "rival_quiet": "The rival stayed quiet.",
    "heat_line": "{who} Heat {start} → {end}: {parts}",
    "heat_yours": "Your",
    "heat_rivals": "Rival",
    "heat_boost": "Boost {amount}",
    "heat_quiet": "stayed quiet {amount}",
    "heat_effect": "{name} {amount}",
    "heat_effect_many": "{count} × {name} {amount}",
    "heat_floor": "Heat stops at {heat_min}",
    "heat_ceiling": "Heat stops at {heat_max}",
    "heat_none": "no change",
    "score_line": "Score after night {night}:",
    "score_you": "You {you}",
    "score_rival": "Rival {rival}",
    "took": "{who} took {vault} ({loot})",
    "took_you": "You",
    "took_rival": "The rival",
    "nobody_took": "Nobody took any vault",
    "night_summary_sr": "Night {night}: {taken}. Score: you {you}, rival {rival}.",
    "base": "base {amount}",
    "boost_part": "Boost {amount}",
    "bonus_part": "bonus {amount} ({why})",
    "no_crew": "No crew",
    "crew_power": "Power {power}",
    "breakdown_title": "{vault}, night {night}",
    "breakdown_you": "Your crew",
    "breakdown_rival": "{rival}'s crew",
    "breakdown_total": "Total {power}",
    # Fair play (the rival's commitment, checked in the browser).
    "fair_checking": "Fair play: checking…",
    "fair_checking_long": "Checking the rival's sealed plan…",
    "fair_ok": "Fair play ✓ Verified",
    "fair_bad": "Fair play ✗ Not verified",
    "fair_unchecked": "Fair play: not checked here",
    "fair_unchecked_long": "This browser cannot check the rival's sealed plan (it needs a secure "
    "connection). The replay can be checked later.",
    "fair_ok_before": "The rival sealed its plan before you sealed yours, and the plan it showed "
    "is the one it sealed. Your browser checked it just now.",
    "fair_ok_night": "The rival sealed its plan for this night, and the plan it showed is the one "
    "it sealed. Your browser checked it just now.",
    "fair_bad_long": "The plan the rival showed does not match the one it sealed. Please report "
    "this heist.",
    "fair_commitment": "Commitment",
    "fair_nonce": "Nonce",
    "fair_check": "Check",
    "fair_digest": "SHA-256(nonce + plan) = {digest}",
    # The piles.
    "pile_rival_discard": "{name}: discard (played)",
    "pile_rival_deck": "{name}: whole deck",
    "pile_your_discard": "Your discard",
    "pile_your_deck": "Your whole deck",
    "pile_none": "None yet.",
    "pile_row": "{n} × {name}",
    # The guide and the tips (the first heist in this browser).
    "tour_offer": "First heist? A short guide points at each step of a night.",
    "tour_card": "Tap a crew card. Its Cost (Energy) is top left, its Power top right, its "
    "effect below.",
    "tour_vault": "Now tap a vault to send that crew there. Your Power shows on the vault.",
    "tour_boost": "Boost: +{boost_power} Power to every crew you send tonight, but +{boost_heat} "
    "Heat, and Heat lowers tomorrow's Energy.",
    "tour_seal": "Seal locks your plan. The rival has already sealed its own.",
    "tour_reveal": "Both plans turn over on the vaults, one vault at a time: the higher Power "
    "takes the Loot, and it goes to that side's score.",
    "tour_show_me": "Show me",
    "tour_no_thanks": "No thanks",
    "tour_next": "Next",
    "tour_got_it": "Got it",
    "tour_skip": "Skip the guide",
    "tip_heat": "Heat {heat} gives you {energy} Energy tonight. Boosting adds {boost_heat} Heat: "
    "less Energy tomorrow.",
    "tip_conditional": "{name}'s bonus holds only if {when}: its vault shows it with a “?”.",
    "tip_boost": "Boost when a vault is close: +{boost_power} Power to each crew you send, "
    "+{boost_heat} Heat.",
    "tip_ok": "Got it",
    "tip_label": "Tip",
    # Encounters: a mark on each vault (or side) they change, a line on the night they fire.
    "mark_double": "×2",
    "mark_closed": "Closed",
    "mark_raise": "+{amount}",
    "mark_fixed": "= {amount}",
    "mark_heat": "Heat {heat}",
    "mark_later": "{mark} {when}",
    "fires_double": "{vault}'s Loot is doubled tonight",
    "fires_closed": "{vault} is closed tonight",
    "fires_raise": "{vault} holds {amount} more Loot tonight",
    "fires_fixed": "{vault}'s Loot is fixed at {amount} tonight",
    "fires_heat_you": "you start at Heat {heat}",
    "fires_heat_rival": "the rival starts at Heat {heat}",
    "short_double": "{vault} ×2",
    "short_closed": "{vault} closed",
    "short_raise": "{vault} +{amount}",
    "short_fixed": "{vault} = {amount}",
    "short_heat_you": "you start at Heat {heat}",
    "short_heat_rival": "rival starts at Heat {heat}",
    "banner": "{name}: {lines}",
    "banner_next": "{name}, night {n}: {lines}",
    "banner_done": "Encounter: {name}",
    "banner_sr": "{name}: {lines}.",
    "and": " and ",
    "term_label": "What is {term}?",
    "picked_badge": "Picked",
}

# key -> (the term as the board says it, its definition with the ruleset's numbers).
GLOSSARY: Mapping[str, tuple[str, str]] = {
    "heat": (
        "Heat",
        "Heat ({heat_min} to {heat_max}) is how much the city is watching a crew. Boost adds "
        "{boost_heat}; a night without Boost cools {quiet_cooling}. Your Heat at the start of a "
        "night sets that night's Energy ({energy_table}), and at {boost_lock_heat} Boost is "
        "locked.",
    ),
    "energy": (
        "Energy",
        "Energy pays for the crew you send tonight: together their Costs must fit it. It comes "
        "from your Heat at the start of the night: {energy_table}.",
    ),
    "boost": (
        "Boost",
        "Boost gives every crew you send tonight +{boost_power} Power and adds {boost_heat} Heat. "
        "You must send at least one crew to Boost.",
    ),
    "quiet": (
        "stay quiet",
        "Staying quiet is not Boosting: no Boost Power tonight, and your Heat cools "
        "{quiet_cooling}.",
    ),
    "loot": (
        "Loot",
        "Each vault holds Loot tonight. The side with more Power there takes it; a tie pays "
        "nobody. After {nights} nights the side with more Loot wins.",
    ),
    "power": (
        "Power",
        "Power is what a crew brings to its vault: its own Power (top right on the card), "
        "+{boost_power} if its side Boosted, and any bonus whose condition holds.",
    ),
    "cost": ("Cost", "Cost (top left on the card) is the Energy a crew needs to be sent tonight."),
    "seal": ("Seal", "Sealing locks your plan for the night; then both plans turn over together."),
    "locked": (
        "Locked in",
        "The rival has sealed its plan and shown a fingerprint of it (a commitment). At the "
        "reveal your browser checks that the plan it shows is the one it sealed.",
    ),
    "lie_low": (
        "lie low",
        "Lying low is sending no crew: you take no vault tonight, and your Heat cools "
        "{quiet_cooling}.",
    ),
    "encounter": (
        "Encounter",
        "An encounter changes this heist's start or some vaults on given nights. The vaults it "
        "changes carry its mark.",
    ),
    "if": (
        "a bonus with “?”",
        "A bonus with “if” holds only when its condition is true at the reveal: the vault shows "
        "it with a “?” until then.",
    ),
}


class _Keep(dict):
    """Leaves a placeholder the ruleset does not know for the board to fill."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(template: str, numbers: Mapping[str, Any]) -> str:
    return string.Formatter().vformat(template, (), _Keep(numbers))


def energy_table(ruleset: Ruleset) -> str:
    """ "Heat 0-1: 3, Heat 2-3: 2, Heat 4-6: 1": the Energy table in runs of equal Energy."""
    runs: list[list[int]] = []
    for heat, energy in enumerate(ruleset.energy_by_heat):
        if runs and runs[-1][2] == energy:
            runs[-1][1] = heat
        else:
            runs.append([heat, heat, energy])
    return ", ".join(
        f"Heat {lo}{f'–{hi}' if hi != lo else ''}: {energy}" for lo, hi, energy in runs
    )


def board_words(ruleset: Ruleset) -> dict[str, Any]:
    """The board's words and glossary with ``ruleset``'s numbers filled in."""
    numbers = {
        "nights": ruleset.nights,
        "max_crew": ruleset.max_crew,
        "heat_min": ruleset.heat_min,
        "heat_max": ruleset.heat_max,
        "boost_power": ruleset.boost_power,
        "boost_heat": ruleset.boost_heat,
        "boost_lock_heat": ruleset.boost_lock_heat,
        "quiet_cooling": ruleset.quiet_cooling,
        "energy_table": energy_table(ruleset),
    }
    return {
        "words": {key: _fill(template, numbers) for key, template in WORDS.items()},
        "glossary": {
            key: {"term": term, "text": _fill(words, numbers)}
            for key, (term, words) in GLOSSARY.items()
        },
    }


def crew_when(ruleset: Ruleset) -> dict[str, str | None]:
    """Each crew's condition in words ("you did not Boost"), None for a crew with none: the board
    tells a conditional crew by it (the tip on night 3, the "?" on a vault)."""
    out: dict[str, str | None] = {}
    for slug, crew in ruleset.crew.items():
        conditions = [
            text.condition(e.condition.kind, e.condition.param)
            for e in crew.effects
            if e.condition.kind != "always" and e.power
        ]
        out[slug] = words.either(conditions) if conditions else None
    return out


# --- The art and the modules ------------------------------------------------------------------


@cache
def sprite_symbols() -> tuple[str, ...]:
    """Every symbol id of the board's sprite ("crew-<slug>", "vault-<slug>", ...), read from
    the file itself, so new art needs no list kept in step with it anywhere."""
    path = finders.find(SPRITE)
    if not path:
        return ()
    with open(path, encoding="utf-8") as sprite:
        return tuple(_SYMBOL.findall(sprite.read()))


@cache
def board_modules() -> tuple[str, ...]:
    """The board's ES modules (static/js/board/*.js), for the page to preload them all at once
    rather than one import after another."""
    folder = finders.find(MODULES)
    if not folder:
        return ()
    return tuple(sorted(f"{MODULES}/{name}" for name in os.listdir(folder) if name.endswith(".js")))
