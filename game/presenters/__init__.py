"""The one place where engine and model objects become what the API sends (each answer declared
once; the OpenAPI schema is generated from the same declarations, game.presenters.render) and
what the pages render: heists (views, night results, replays, history rows), the catalogue
(crew, rivals, encounters with their modifiers in words, decks) and the pages' own contexts."""
