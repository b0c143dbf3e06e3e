"""The player's rating (DESIGN.md section 11): Glicko-2 arithmetic (glicko2.py) and the levels'
anchor ratings measured from the rival tournament, as versioned data (anchors.py reads
game/data/rating.json). Pure Python: no Django, no database, no clock; the writes are
game.services.rating, the reads game.selectors.rating."""
