"""The site's words: the pages', the board's, the deck builder's, the rules page's and the
featured heists' sentences, built from the ruleset's numbers (never their own copies).

The engine words only what it says itself (game.engine.text: its conditions, effects and
errors); everything a page, the board (static/js/board.js formats the templates the page hands
it) or the deck builder (static/js/deck.js, the same) says around them is here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from game.engine import Ruleset
from game.engine.text import CONDITIONS
from game.rivals import debrief as solver

# --- Encounters ---------------------------------------------------------------------------------

_SIDE_STARTS = {"player": "You start", "you": "You start", "rival": "The rival starts"}
_VAULT_MOD = {
    "fixed": "{vault}: loot is fixed at {amount} on {when}.",
    "raise": "{vault}: loot is raised by {amount} on {when}.",
    "double": "{vault}: loot is doubled on {when}.",
    "closed": "{vault} is closed on {when}: no crew may be sent there.",
}


def nights_phrase(nights: Sequence[int]) -> str:
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


def standard_heist(ruleset: Ruleset) -> str:
    """The picker's line for a heist without an encounter."""
    return (
        f"Both crews start at Heat {max(0, ruleset.heat_min)}; every vault holds "
        f"{ruleset.loot_min} to {ruleset.loot_max} Loot each night."
    )


# --- The deck builder ---------------------------------------------------------------------------
# Templates the page fills and hands to static/js/deck.js, which fills them the same way.
DECK_BUILDER: Mapping[str, str] = {
    "too_many_copies": "At most {max_copies} copies of {name}.",
    "count_invalid": "The count of {name} must be a whole number from 0 to {max_copies}.",
    "full": "Your deck already has {size} cards: take one out first.",
    "short_one": "Add 1 more card to make {size}.",
    "short": "Add {missing} more cards to make {size}.",
    "long": "Take out {extra}: a deck has exactly {size} cards.",
    "legal": "Ready: your deck is legal.",
    "legal_unsaved": "Ready: your deck is legal. Save it to play with it.",
}


def deck_reason(counts: Mapping[str, int], ruleset: Ruleset) -> str | None:
    """Why a deck being built is not legal yet, for a person; None when it is."""
    total = sum(counts.values())
    over = [s for s, n in counts.items() if n > ruleset.max_copies]
    if over:
        name = ruleset.crew[over[0]].name
        return DECK_BUILDER["too_many_copies"].format(max_copies=ruleset.max_copies, name=name)
    size = ruleset.deck_size
    if total < size:
        missing = size - total
        key = "short_one" if missing == 1 else "short"
        return DECK_BUILDER[key].format(missing=missing, size=size)
    if total > size:
        return DECK_BUILDER["long"].format(extra=total - size, size=size)
    return None


# --- The board ----------------------------------------------------------------------------------
# The board's own words are game/presenters/board.py's table (WORDS, GLOSSARY).


def breakdown_line(parts: Iterable[Mapping[str, Any]], *, rival: bool, reasons: Mapping) -> str:
    """An engine breakdown as one line: base 1 · Boost +2 · bonus +2 (you Boosted)."""
    words = []
    for part in parts:
        kind, amount = part["kind"], part["amount"]
        if kind == "base":
            words.append(f"base {amount}")
        elif kind == "boost":
            words.append(f"Boost {amount:+d}")
        else:
            reason = part.get("reason", "")
            why = reasons.get(reason, reason) if rival else reason.split(": ", 1)[-1]
            words.append(f"bonus {amount:+d} ({why})")
    return " · ".join(words)


# --- How to play: the home page and the rules page ------------------------------------------------

_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
)  # fmt: skip


def word(n: int) -> str:
    """A small number in words ("six"), else in figures."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


def summary(ruleset: Ruleset) -> str:
    return (
        f"{word(ruleset.nights).capitalize()} nights, {word(len(ruleset.vaults))} vaults, up to "
        f"{word(ruleset.max_crew)} crew a night: plan in secret, turn both plans over together, "
        "and the higher Power takes the Loot."
    )


def night_steps(ruleset: Ruleset) -> list[tuple[str, str]]:
    """A night in four steps, for the home page."""
    return [
        (
            "Plan.",
            f"Pick up to {ruleset.max_crew} crew from your hand of {ruleset.hand_size} and send "
            "each to a vault. Their Energy costs must fit this night's Energy.",
        ),
        (
            "Seal.",
            "Choose whether to Boost, then lock your plan. The rival has already sealed its own, "
            "and shows you a fingerprint of it.",
        ),
        (
            "Reveal.",
            "Both plans turn over together. At each vault, add up each side's Power.",
        ),
        (
            "Loot.",
            "The higher Power takes that vault's Loot; a tie pays nobody. After "
            f"{ruleset.nights} nights, the most Loot wins.",
        ),
    ]


def boost_and_heat(ruleset: Ruleset) -> str:
    return (
        f"Boost gives every crew you send this night +{ruleset.boost_power} Power and adds "
        f"{ruleset.boost_heat} Heat. You must send at least one crew to Boost. A night without "
        f"Boost cools {ruleset.quiet_cooling} Heat. Heat stays between {ruleset.heat_min} and "
        f"{ruleset.heat_max}, and at {ruleset.boost_lock_heat} Boost is locked."
    )


def deck_rule(ruleset: Ruleset) -> str:
    return (
        f"a {word(ruleset.deck_size)}-card deck with at most {ruleset.max_copies} copies of "
        "each type"
    )


# What a condition may read beyond RULES.md step 5 (the 2026.12 ruling), as the rules page says
# it when some crew of the ruleset reads it (NightContext field -> words).
WIDER_READS: Mapping[str, str] = {
    "night": "the night's number",
    "loot": "this night's Loot at the crew's vault",
}


def _reads_and_kinds(ruleset: Ruleset) -> tuple[set[str], set[str]]:
    reads: set[str] = set()
    kinds: set[str] = set()
    for crew in ruleset.crew.values():
        for effect in crew.effects:
            kinds.add(effect.condition.kind)
    for effects in ruleset.compiled.values():
        for compiled in effects:
            reads |= compiled.reads
    return reads, kinds


def rules_page(ruleset: Ruleset) -> dict[str, Any]:
    """The rules page's sentences for ``ruleset`` (RULES.md, with its rulings)."""
    rs = ruleset
    vault_names = ", ".join(v.name for v in rs.vaults)
    reads, kinds = _reads_and_kinds(rs)
    wider = [words for field, words in WIDER_READS.items() if field in reads]
    reveal_reads = (
        "Conditions read only this night's two sealed plans, both sides' Heat at the start of the "
        "night and who won each vault last night"
        + (
            f", and {' and '.join(wider)}, shown to both sides before anyone plans."
            if wider
            else "."
        )
    )
    # The "won last night" ruling (Rooftop Runner; Insider in 2026.12), in the conditions' words.
    won = ["rival_won_vault_last_night"]
    if "self_won_vault_last_night" in kinds:
        won.append("self_won_vault_last_night")
    won_words = " and ".join(f"“{CONDITIONS[k][0]}”" for k in won)
    won_ruling = (
        f"{won_words[0]}{won_words[1].upper()}{won_words[2:]} "
        f"never hold{'s' if len(won) == 1 else ''} on night 1, and a tied vault was won by nobody."
    )
    return {
        "intro": (
            f"A heist is {rs.nights} nights against a rival crew. Each night both sides secretly "
            f"send up to {rs.max_crew} crew into the {word(len(rs.vaults))} vaults ({vault_names}),"
            " then both plans are revealed together. The higher Power at a vault takes its Loot;"
            f" after night {rs.nights} the side with more Loot wins, and equal Loot is a draw."
        ),
        "steps": [
            (
                "Setup",
                f"Each side's {rs.deck_size}-card deck is shuffled with the heist's random "
                f"generator and each draws {rs.hand_size}. Both start at Heat "
                f"{max(0, rs.heat_min)} unless an encounter says otherwise.",
            ),
            (
                "Night start",
                f"Each vault's Loot for the night is drawn, {rs.loot_min} to {rs.loot_max}, "
                "unless an encounter fixes or changes it, and both sides see it. Your Energy "
                "for the night comes from your Heat at its start (the table below).",
            ),
            (
                "Plan",
                f"Choose up to {rs.max_crew} cards from your hand and a vault for each (both may "
                "go to the same vault). Their costs together must fit this night's Energy. You "
                f"may Boost only if you send at least one crew and your Heat is below "
                f"{rs.boost_lock_heat}.",
            ),
            (
                "Seal",
                "The rival seals its plan first and shows a commitment to it (a SHA-256 "
                "fingerprint); then you seal yours.",
            ),
            (
                "Reveal",
                f"Each crew's Power is its base Power, +{rs.boost_power} if its side Boosted, "
                "plus every bonus whose condition holds. " + reveal_reads,
            ),
            (
                "Loot",
                "At each vault each side's Power is added up; the higher total takes the vault's "
                "Loot. Equal totals, 0 against 0 included, pay nobody.",
            ),
            (
                "Heat",
                f"A side that Boosted gains {rs.boost_heat} Heat; a side that did not cools "
                f"{rs.quiet_cooling}. Crew effects add their own changes, and Heat stays between "
                f"{rs.heat_min} and {rs.heat_max}.",
            ),
            (
                "Cleanup",
                f"Sent crew go to the discard pile and each side draws back up to {rs.hand_size};"
                " drawing from an empty deck first shuffles the discard pile into a new deck.",
            ),
        ],
        "loot": (
            f"Every vault holds {rs.loot_min} to {rs.loot_max} Loot each night, drawn when the "
            "night starts. Later nights' Loot is never shown before its night."
        ),
        "boost": boost_and_heat(rs),
        "deck": f"Build {deck_rule(rs)}.",
        "rulings": [
            "All of a night's Heat changes are added up first, and the total is kept within the "
            f"Heat range once: Heat {rs.heat_max - 1} with a Boost (+{rs.boost_heat}) and a crew "
            f"that cools 1 ends at {min(rs.heat_max, rs.heat_max - 1 + rs.boost_heat - 1)}.",
            "“Another of your crew is in this vault” counts only your own crew: two such crew "
            "in one vault each get the bonus.",
            won_ruling,
            "Loot of later nights is never shown, and the program that plays for the rival "
            "cannot read it either.",
        ],
        "hidden": [
            "You see your own hand, deck count and discard pile; the rival's hand count, deck "
            "count, discard pile, Heat, Energy and score; both decklists; this night's Loot; and "
            "every earlier night's full reveal.",
            "Neither side sees the other's hand, either deck's order or future Loot. The "
            "program that plays for the rival receives exactly the rival's view, never the "
            "whole heist.",
        ],
        "fairness": [
            "The rival seals its plan before you seal yours and shows its commitment: the SHA-256 "
            "of a secret nonce and its plan. At the reveal the nonce is published and the board "
            "checks the plan against the commitment in your browser.",
            "The heist's random seed combines a server seed, whose SHA-256 is shown when the "
            "heist starts, with an optional seed of your own. Both are published when the heist "
            "ends, so anyone can replay every shuffle, draw and Loot and check every night: "
            "python -m game.engine.replay FILE.json.",
        ],
    }


def either(names: Iterable[str]) -> str:
    """ "A, B, C or D"."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# --- Featured heists -------------------------------------------------------------------------


def duration(minutes: int) -> str:
    """ "24 hours", "90 minutes", "2 days": a slot's length as a person says it."""
    if minutes % (60 * 24) == 0:
        days = minutes // (60 * 24)
        return f"{days} day{'s' if days != 1 else ''}" if days != 1 else "24 hours"
    if minutes % 60 == 0:
        hours = minutes // 60
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def featured_rules(*, slot_minutes: int, ranked_finish: int, top: Sequence[int]) -> list[str]:
    """The featured heists' rules (RULES.md "Featured heists"), with the site's numbers."""
    places = ", ".join(str(n) for n in top[:-1]) + f" and {top[-1]}" if len(top) > 1 else ""
    lines = [
        f"A featured heist runs for {duration(slot_minutes)} (UTC) with one encounter, one rival "
        "and difficulty, and one fixed deck for you. Every ranked try plays from the same seed: "
        "the same shuffles, draws and Loot for as long as you play the same plans.",
        "Practice heists (a guest's, and a player's besides the ranked try) play the same "
        "encounter, rival and deck on a seed of its own each, so nobody meets the ranked "
        "heist's draws, Loot or rival plans before their own ranked try is over.",
        "The seed's SHA-256 is shown while the heist runs; the seed itself is published when it "
        "ends, and from then every one of its heists can be replayed and checked offline. No "
        "seed of yours is mixed in.",
        "Your first featured heist in a slot is ranked, signed in; later ones are practice. "
        "Guests play for practice. A ranked heist you leave unfinished still counts as your "
        "attempt.",
        "The board ranks more Loot first, then the larger margin over the rival, then the "
        "earlier finish. A heist counts only if it finished before the slot ended.",
    ]
    if ranked_finish:
        lines.append(
            f"A ranked heist finished in time earns {ranked_finish} Signs on top of the usual "
            "award"
            + (f"; when the slot ends its top places earn {places} Signs." if places else ".")
        )
    return lines


# --- The debrief (DESIGN.md section 10) -------------------------------------------------------


def debrief_rules() -> list[str]:
    """How the debrief scores a night, for the rules page, from the solver's own numbers
    (game.rivals.debrief)."""
    bounds = dict(solver.LABELS)
    win = solver.WIN_LOOT
    scale = solver.ACCURACY_SCALE
    last = word(solver.WIN_NIGHTS)
    formula = f"100 \u00d7 e^(\u2212loot lost / {scale:g})"

    def acc(lost: float) -> str:
        return f"{round(solver.night_accuracy(lost))}"

    return [
        "After a heist, its debrief goes over each night with only what you could see then: "
        "your hand, both sides' Heat, Energy, score and discard pile, both decklists, the "
        "night's Loot and the nights before. Never the rival's hand or plan.",
        "Each plan your hand allowed is scored against the plans the rival could have sent, as "
        "the Kingpin rival's own model sees them from your seat: every hand the rival may hold, "
        "and how this rival has played so far.",
        f"Before the last {last} nights a plan is worth the Loot it is expected to win you "
        "over the rival, plus what the Heat it leaves both sides is worth for the nights to "
        f"come. On the last {last} nights it is worth its chance to win the heist "
        f"(a draw counts half), and a chance lost counts {win:g} Loot for a whole win.",
        "Loot lost is the best plan's worth less yours. A night is Best when nothing is lost, "
        f"Good under {bounds['good']:g} Loot, an Inaccuracy under {bounds['inaccuracy']:g}, a "
        f"Mistake under {bounds['mistake']:g} and a Blunder from {bounds['mistake']:g} up.",
        f"Accuracy: each night with more than one possible plan scores {formula}, so 100 for "
        f"the best plan, {acc(0.5)} for half a Loot lost, {acc(1.5)} for "
        f"1.5 and {acc(3)} for 3. The heist's accuracy is the average of its nights.",
        "Luck is what the rival's revealed plan gave you or took from you, against what your "
        "plan could expect. The turning point is the night that moved your chance to win the "
        "most.",
        "Try this night again starts a practice heist from that night's exact position: the "
        "same hands, Loot, Heat, scores and rival. It is never ranked and earns no Signs. A "
        "featured heist's debrief and retries open when its slot closes.",
    ]


_SAID = {"win": "a win", "loss": "a loss", "draw": "a draw"}


def practice_compared(night: int, now: dict[str, Any], then: dict[str, Any]) -> str:
    """How a finished practice retry compares with the heist it retried (each ``{outcome, you,
    rival}``)."""
    return (
        f"Trying night {night} again, you finished {now['you']} to {now['rival']} "
        f"({_SAID[now['outcome']]}); the first time, {then['you']} to {then['rival']} "
        f"({_SAID[then['outcome']]})."
    )
