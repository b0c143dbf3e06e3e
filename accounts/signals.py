from django.dispatch import Signal

# Sent inside `account_delete`'s transaction, before the user row goes, with `user=`.
# The heist app connects here to anonymise the player's heists (they are kept for the rivals'
# statistics and replays, without the player): a receiver that fails rolls the deletion back.
account_deleting = Signal()

# Sent inside `time_zone_set`'s transaction when a player's time zone changes, with `user=`,
# `old=` and `new=` (zone names; an unset zone is "UTC") and `first=` (the player had none set:
# this is the browser's first word, or the player's). The game connects here to move the end
# of the player's current jobs' day to a midnight of the new zone.
time_zone_changed = Signal()
