"""Handles that look alike are one handle (issue 27, S6): each profile's look-alike keys
(accounts.names.handle_keys: the TR39 skeleton of the handle as shown and case-folded), every
key unique in the database. Of profiles whose handles already shared a key, the oldest keeps
its handle and the later ones get a generated one (their players choose again on the
profile); so does a handle that is now reserved (admin, staff, veyltak...)."""

import django.db.models.deletion
from django.core.exceptions import ValidationError
from django.db import migrations, models

import accounts.names


def _refused(handle: str) -> bool:
    try:
        accounts.names.clean_handle(handle)
    except ValidationError:
        return True
    return False


def fill_keys(apps, schema_editor):
    Profile = apps.get_model("accounts", "Profile")
    HandleKey = apps.get_model("accounts", "HandleKey")
    held: set[str] = set()
    for profile in Profile.objects.order_by("created_at", "pk"):
        handle = profile.handle
        keys = accounts.names.handle_keys(handle)
        while keys & held or _refused(handle):
            handle = accounts.names.generated_handle()
            keys = accounts.names.handle_keys(handle)
        held |= keys
        if handle != profile.handle:
            Profile.objects.filter(pk=profile.pk).update(handle=handle)
        HandleKey.objects.bulk_create(HandleKey(profile_id=profile.pk, key=key) for key in keys)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0007_email_claims")]

    operations = [
        migrations.CreateModel(
            name="HandleKey",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.TextField(unique=True)),
                (
                    "profile",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="handle_keys",
                        to="accounts.profile",
                    ),
                ),
            ],
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
    ]
