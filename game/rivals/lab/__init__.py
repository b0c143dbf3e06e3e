"""The rival lab: offline tools that measure and tune the rival (tournament, player-style panel,
value fitting). Nothing the site runs imports this package; the runtime rival is the rest of
``game.rivals`` (a test checks both directions)."""
