"""Grant Signs to a player by email (staff use)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from shop import services
from veyltak_site.exceptions import ApplicationError


def _user_by_email(email: str):
    users = list(
        get_user_model()
        .objects.filter(Q(email__iexact=email) | Q(emailaddress__email__iexact=email))
        .distinct()[:2]
    )
    if not users:
        raise CommandError(f"no player has the email address {email!r}")
    if len(users) > 1:
        raise CommandError(f"more than one account uses {email!r}; grant in the admin instead")
    return users[0]


class Command(BaseCommand):
    help = (
        "Grant AMOUNT Signs to the player with email EMAIL, saying why (--reason). With --key, "
        "running the same grant again pays once."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("email")
        parser.add_argument("amount", type=int)
        parser.add_argument("--reason", required=True, help="why, as the player will read it")
        parser.add_argument("--key", help="an idempotency key for this grant")
        parser.add_argument("--actor", help="email of the staff member granting")

    def handle(self, *args, email, amount, reason, key=None, actor=None, **options) -> None:
        player = _user_by_email(email)
        staff = _user_by_email(actor) if actor else None
        if staff is not None and not staff.is_staff:
            raise CommandError(f"{actor!r} is not a staff account")
        try:
            posted = services.signs_grant(
                user=player,
                amount=amount,
                reason_text=reason,
                actor=staff,
                key=f"grant:{key}" if key else None,
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        balance = next(iter(posted.balances.values()))
        if posted.created:
            self.stdout.write(
                f"granted {amount} Signs to {email} (transaction {posted.transaction.pk}); "
                f"balance {balance}"
            )
        else:
            self.stdout.write(
                f"already granted under this key (transaction {posted.transaction.pk}); "
                f"nothing written; balance {balance}"
            )
