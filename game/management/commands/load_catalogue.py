from django.core.management.base import BaseCommand

from game.engine.rules import DEFAULT_VERSION
from game.services import catalogue_load


class Command(BaseCommand):
    help = "Load the crew catalogue of a ruleset (default: the current one). Safe to run again."

    def add_arguments(self, parser):
        parser.add_argument("--ruleset", default=DEFAULT_VERSION)

    def handle(self, *args, ruleset, **options):
        count = catalogue_load(ruleset=ruleset)
        self.stdout.write(f"Catalogue: {count} crew types of ruleset {ruleset}.")
