"""Handles are required and unique whatever the case (after 0004 gave every profile one; a
separate migration, so PostgreSQL alters the table in a transaction with no pending writes)."""

from django.db import migrations, models
from django.db.models.functions import Lower

import accounts.names


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_profile_handle")]

    operations = [
        migrations.AlterField(
            model_name="profile",
            name="handle",
            field=models.CharField(default=accounts.names.generated_handle, max_length=24),
        ),
        migrations.AddConstraint(
            model_name="profile",
            constraint=models.UniqueConstraint(Lower("handle"), name="profile_handle_unique_ci"),
        ),
    ]
