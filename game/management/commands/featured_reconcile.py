from django.core.management.base import BaseCommand

from game.services.featured import featured_reconcile


class Command(BaseCommand):
    help = (
        "Close the featured slots that have ended and make sure the slot in play and the next "
        "two exist (what the beat task does every few minutes). Safe to run again."
    )

    def handle(self, *args, **options):
        done = featured_reconcile()
        self.stdout.write(
            f"Featured: created {', '.join(done.created) or 'none'}; "
            f"closed {', '.join(done.closed) or 'none'}."
        )
