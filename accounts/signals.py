from django.dispatch import Signal

# Sent inside `account_delete`'s transaction, before the user row goes, with `user=`.
# The heist app connects here to anonymise the player's heists (they are kept for the rivals'
# statistics and replays, without the player): a receiver that fails rolls the deletion back.
account_deleting = Signal()
