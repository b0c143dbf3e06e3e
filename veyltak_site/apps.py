from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "veyltak_site"
    verbose_name = "VEYLTAK site"
