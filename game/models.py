from django.db import models


class CrewType(models.Model):
    """A crew card type as the catalogue shows it, loaded from a ruleset (`load_catalogue`).

    The engine's ruleset data is the source of truth; this table is a copy for pages, the shop
    and the admin, keyed by (ruleset, slug) so an old ruleset's cards stay listed.
    """

    ruleset = models.CharField(max_length=32)
    slug = models.SlugField(max_length=64)
    name = models.CharField(max_length=100)
    cost = models.PositiveSmallIntegerField()
    power = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=200, blank=True)
    set = models.SlugField(max_length=32, default="base")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["ruleset", "position"]
        constraints = [
            models.UniqueConstraint(fields=["ruleset", "slug"], name="crewtype_unique_per_ruleset")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.ruleset})"
