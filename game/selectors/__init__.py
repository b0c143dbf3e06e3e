"""Reads of the game app, one module per job: heists, decks (the player's saved decks) and the
catalogue (crew, rivals, encounters, ready-made decks). They return models and engine objects;
game.presenters turns those into what the API sends and the pages render."""
