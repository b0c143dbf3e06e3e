"""Emails are unique case-insensitively in the database (issue 17, finding 7), step 1.

allauth checks uniqueness in Python before saving, so sign-ups sent at once with one address
each passed the check and each made an account. These unique indexes make the database refuse
the second: one on the account's own email (``auth_user``, where sign-up writes first) and one
on verified addresses (allauth's own constraint there is case-sensitive).

This step resolves the accounts that the race already duplicated (0004 adds the indexes, in a
transaction of its own): the oldest account with an address keeps it; the later ones are
deactivated and lose the address (none of them could have verified an address another account
held, so none proved it was theirs).
"""

from django.db import migrations
from django.db.models.functions import Lower


def resolve_duplicates(apps, schema_editor):
    User = apps.get_model("auth", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    seen: dict[str, int] = {}
    later: list[int] = []
    for pk, email in (
        User.objects.exclude(email="")
        .annotate(key=Lower("email"))
        .order_by("date_joined", "pk")
        .values_list("pk", "key")
    ):
        if email in seen:
            later.append(pk)
        else:
            seen[email] = pk
    if later:
        for user in User.objects.filter(pk__in=later):
            EmailAddress.objects.filter(user_id=user.pk, email__iexact=user.email).delete()
        User.objects.filter(pk__in=later).update(email="", is_active=False)
    # Verified addresses held by two accounts (only possible with different letter case).
    kept: set[str] = set()
    for address in EmailAddress.objects.filter(verified=True).order_by("pk"):
        key = address.email.lower()
        if key in kept:
            address.verified = False
            address.primary = False
            address.save(update_fields=["verified", "primary"])
        kept.add(key)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_gate_record"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [
        migrations.RunPython(resolve_duplicates, migrations.RunPython.noop),
    ]
