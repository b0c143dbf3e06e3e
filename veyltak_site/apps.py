from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "veyltak_site"
    verbose_name = "VEYLTAK site"

    def ready(self) -> None:
        # The Celery app is made here, once Django is set up, rather than when the package is
        # imported: gunicorn's master imports veyltak_site.logs before it forks, and must not
        # hold Celery's state (a worker's shutdown could hang on it). Tasks sent by any process
        # of the site then go through this app (`celery -A veyltak_site` finds it by itself).
        from veyltak_site import celery, telemetry  # noqa: F401

        telemetry.connect()
