from django.apps import AppConfig


class GameConfig(AppConfig):
    name = "game"
    verbose_name = "Heists"

    def ready(self) -> None:
        from game import signals  # noqa: F401  (connects the receivers)
