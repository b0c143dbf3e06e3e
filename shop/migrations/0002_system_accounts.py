from django.db import migrations

SYSTEM_ACCOUNTS = ("rewards", "grants", "shop")


def create(apps, schema_editor):
    Account = apps.get_model("shop", "Account")
    for slug in SYSTEM_ACCOUNTS:
        Account.objects.get_or_create(kind="system", slug=slug)


class Migration(migrations.Migration):
    dependencies = [("shop", "0001_ledger")]

    # The reverse leaves them: an account with entries cannot go, and 0001's reverse drops the
    # table anyway.
    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
