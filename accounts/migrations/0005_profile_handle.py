"""Public handles (issue 17, finding 8): every account gets one, not derived from its email.

Existing accounts get a generated handle (and a profile, if they had none); players change it
on their profile. Uniqueness ignores case (a functional unique index on LOWER(handle)).
"""

from django.db import migrations, models

import accounts.names


def give_handles(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Profile = apps.get_model("accounts", "Profile")
    for user_id in User.objects.filter(profile__isnull=True).values_list("pk", flat=True):
        Profile.objects.create(user_id=user_id)
    taken = {
        h.lower() for h in Profile.objects.exclude(handle=None).values_list("handle", flat=True)
    }
    for profile in Profile.objects.filter(handle=None):
        handle = accounts.names.generated_handle()
        while handle.lower() in taken:
            handle = accounts.names.generated_handle()
        taken.add(handle.lower())
        profile.handle = handle
        profile.save(update_fields=["handle"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_unique_emails_index"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="handle",
            field=models.CharField(max_length=24, null=True),
        ),
        migrations.RunPython(give_handles, migrations.RunPython.noop),
    ]
