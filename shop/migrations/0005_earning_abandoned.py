"""A heist left unfinished counts toward the day's limit (issue 27, S13): earnings of 0 with the
result `abandoned`."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("shop", "0004_shop_items"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="heistearning",
            name="shop_earning_result_consistent",
        ),
        migrations.AlterField(
            model_name="heistearning",
            name="result",
            field=models.CharField(
                choices=[
                    ("earned", "Earned"),
                    ("daily_limit", "Daily Limit"),
                    ("abandoned", "Abandoned"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="heistearning",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("amount__gt", 0), ("result", "earned"), ("transaction__isnull", False)
                    ),
                    models.Q(
                        ("amount", 0),
                        ("result__in", ["daily_limit", "abandoned"]),
                        ("transaction__isnull", True),
                    ),
                    _connector="OR",
                ),
                name="shop_earning_result_consistent",
            ),
        ),
    ]
