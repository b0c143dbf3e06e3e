"""Jobs (DESIGN.md section 11): daily and weekly goals drawn per player from a versioned pool,
checked from the stored nights of finished heists and paid once through the Signs ledger.

``conditions`` (what a heist counts for a job), ``pool`` (the versioned data and the seeded
draw) and ``periods`` (days and weeks in the player's time zone) are pure: no Django, no clock.
``models`` holds the one table, a player's period with its drawn jobs. The writes are in
game.services.jobs, the answers in game.presenters.jobs.
"""
