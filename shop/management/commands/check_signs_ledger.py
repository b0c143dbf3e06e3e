"""Check the Signs ledger: every wallet against its entries, and the zero sum."""

from django.core.management.base import BaseCommand, CommandError

from shop import selectors


class Command(BaseCommand):
    help = (
        "Check the Signs ledger: each wallet's balance against its entries and their running "
        "balances, every transaction and all entries summing to zero. Exits non-zero naming "
        "each account or transaction that differs."
    )

    def handle(self, *args, **options) -> None:
        problems = selectors.ledger_problems()
        for problem in problems:
            self.stderr.write(problem.text)
        if problems:
            raise CommandError(f"the Signs ledger has {len(problems)} problem(s)")
        balances = ", ".join(f"{k} {v}" for k, v in sorted(selectors.system_balances().items()))
        self.stdout.write(f"the Signs ledger balances (system accounts: {balances})")
