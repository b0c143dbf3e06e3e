"""Emails are unique case-insensitively in the database (issue 17, finding 7), step 2: the
unique indexes (0003 resolved the duplicates they would refuse)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_unique_emails")]

    operations = [
        migrations.RunSQL(
            "CREATE UNIQUE INDEX accounts_user_email_ci ON auth_user (LOWER(email))"
            " WHERE email <> ''",
            "DROP INDEX accounts_user_email_ci",
        ),
        migrations.RunSQL(
            "CREATE UNIQUE INDEX accounts_emailaddress_verified_ci"
            " ON account_emailaddress (LOWER(email)) WHERE verified",
            "DROP INDEX accounts_emailaddress_verified_ci",
        ),
    ]
