from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ShopConfig(AppConfig):
    name = "shop"
    verbose_name = "Shop"

    def ready(self) -> None:
        from shop import account_extensions, signals

        account_extensions.register()

        # After every migrate and flush: the system accounts exist, and no stale id is cached.
        post_migrate.connect(signals.system_accounts, sender=self, dispatch_uid="shop.system")
