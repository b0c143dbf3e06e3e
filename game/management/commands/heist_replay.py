from django.core.management.base import BaseCommand, CommandError

from game.models import Heist
from game.presenters.replay import replay
from game.selectors.heists import heist_nights
from veyltak_site.exceptions import ApplicationError


class Command(BaseCommand):
    help = (
        "Print a closed heist's replay record (the JSON of GET /api/v1/heists/{id}/replay/); "
        "verify it with `python -m game.engine.replay FILE.json`."
    )

    def add_arguments(self, parser):
        parser.add_argument("heist_id")

    def handle(self, *args, heist_id, **options):
        import json

        heist = Heist.objects.filter(pk=heist_id).first() if _is_uuid(heist_id) else None
        if heist is None:
            raise CommandError(f"no heist {heist_id}")
        try:
            record = replay(heist, heist_nights(heist))
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(json.dumps(record, indent=2))


def _is_uuid(value: str) -> bool:
    import uuid

    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True
