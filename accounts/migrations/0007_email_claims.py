"""An address sits on one account (issue 27, S3): the email page used to add any address
unconfirmed, another account's included. Such claims were never proved (confirming one was
refused, allauth's check, or the database's unique index), and they kept the address "in use"
for sign-up. This removes every unconfirmed, non-primary address that another account holds:
as the address it signed up with, or confirmed. Nothing is removed that anyone confirmed."""

from django.db import migrations
from django.db.models import Exists, OuterRef
from django.db.models.functions import Lower


def remove_unproved_claims(apps, schema_editor):
    User = apps.get_model("auth", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    held_by_account = (
        User.objects.annotate(key=Lower("email"))
        .filter(key=Lower(OuterRef("email")), email__gt="")
        .exclude(pk=OuterRef("user_id"))
    )
    held_verified = (
        EmailAddress.objects.annotate(key=Lower("email"))
        .filter(key=Lower(OuterRef("email")), verified=True)
        .exclude(user_id=OuterRef("user_id"))
    )
    EmailAddress.objects.filter(verified=False, primary=False).filter(
        Exists(held_by_account) | Exists(held_verified)
    ).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_profile_handle_unique"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(remove_unproved_claims, migrations.RunPython.noop)]
