"""Writes of the game app, one module per job: heists, rival turns, decks (saved decks) and the
catalogue. Keyword-only, typed, each under transaction.atomic; they return models and domain
objects (a HeistSnapshot, a resolved HeistNight), never API dicts."""
