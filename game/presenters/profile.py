"""What game adds to the account pages (registered in accounts.extensions by GameConfig.ready):
the profile's record and heists played, and the heists and decks of the account export."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.urls import reverse

from game.presenters.catalogue import saved_decks_export
from game.presenters.debrief import whole_accuracy
from game.presenters.heists import history_rows
from game.selectors.catalogue import difficulties, encounters, rivals
from game.selectors.decks import saved_decks
from game.selectors.heists import player_heists


def export_heists(user: AbstractBaseUser) -> list[dict[str, Any]]:
    """{id, rival, difficulty, encounter, status, outcome, score: {you, rival}, created_at,
    finished_at, replay_url}, newest first."""
    return history_rows(player_heists(user_id=user.pk))


def export_decks(user: AbstractBaseUser) -> list[dict[str, Any]]:
    return saved_decks_export(saved_decks(user=user))


def tallies(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Won/drawn/lost per (rival, difficulty) over closed heists: a heist left unfinished
    (abandoned) is a loss (issue 27, S13)."""
    counts: dict[tuple[str, str], dict[str, Any]] = {}
    for row in history:
        outcome = "loss" if row.get("status") == "abandoned" else row.get("outcome")
        if outcome not in ("win", "draw", "loss"):
            continue  # in play: no result yet
        key = (row["rival"], row["difficulty"])
        tally = counts.setdefault(
            key, {"rival": key[0], "difficulty": key[1], "win": 0, "draw": 0, "loss": 0}
        )
        tally[outcome] += 1
    return sorted(counts.values(), key=lambda t: (t["rival"], t["difficulty"]))


def profile_context(user: AbstractBaseUser) -> dict[str, Any]:
    history = export_heists(user)
    names = {p.slug: p.name for p in rivals()}
    levels = {d.slug: d.name for d in difficulties()}
    scenes = {e.slug: e.name for e in encounters()}
    rows = []
    for row in history:
        # The page links to the game's pages (the board while in play, the replay once
        # closed); the export keeps the API links.
        closed = bool(row.get("replay_url"))
        rows.append(
            {
                **row,
                "rival_name": names.get(row["rival"], row["rival"]),
                # Names, never the catalogue's ids ("Crown Finale", not "crown-finale").
                "difficulty_name": levels.get(row["difficulty"], row["difficulty"]),
                "encounter_name": scenes.get(row["encounter"], row["encounter"])
                if row.get("encounter")
                else None,
                "played_at": dt.datetime.fromisoformat(row["created_at"]),
                "link": reverse("heist-replay" if closed else "heist", args=[row["id"]]),
                "link_text": "Replay" if closed else "Continue",
                # Rounded as the result page rounds it; the export keeps the decimal.
                "accuracy_shown": None
                if row["accuracy"] is None
                else whole_accuracy(row["accuracy"]),
            }
        )
    return {
        "history": rows,
        "tallies": [
            {
                **t,
                "rival_name": names.get(t["rival"], t["rival"]),
                "difficulty_name": levels.get(t["difficulty"], t["difficulty"]),
            }
            for t in tallies(history)
        ],
    }
