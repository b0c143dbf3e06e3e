from django.core.management.base import BaseCommand

from game import catalogue
from game.engine.rules import DEFAULT_VERSION
from game.services.catalogue import catalogue_load
from shop.services import shop_catalogue_load


class Command(BaseCommand):
    help = (
        "Load the crew catalogue of a ruleset (default: the current one) and the shop's items "
        "(shop/data/catalogue.json). Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--ruleset", default=DEFAULT_VERSION)

    def handle(self, *args, ruleset, **options):
        count = catalogue_load(ruleset=ruleset)
        self.stdout.write(f"Catalogue: {count} crew types of ruleset {ruleset}.")
        # Encounters and ready-made decks are JSON data (game/data/), validated against the
        # ruleset when read: a bad file fails here, at start-up, not in a player's heist.
        loaded = catalogue.active()
        self.stdout.write(
            f"Data: {len(loaded.encounters)} encounters, {len(loaded.decks)} ready-made decks, "
            f"{len(loaded.rotation)} featured heists in the rotation."
        )
        items = shop_catalogue_load()
        self.stdout.write(f"Shop: {items} items (shop/data/catalogue.json).")
