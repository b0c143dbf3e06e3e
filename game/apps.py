from django.apps import AppConfig


class GameConfig(AppConfig):
    name = "game"
    verbose_name = "Heists"

    def ready(self) -> None:
        from accounts import extensions
        from game import signals  # noqa: F401  (connects the receivers)
        from game.presenters import profile

        # accounts never imports game: game fills its seams (DESIGN.md section 2).
        extensions.register_profile_section(
            "heists", template="game/_profile_heists.html", context=profile.profile_context
        )
        extensions.register_export_section("heists", profile.export_heists)
        extensions.register_export_section("decks", profile.export_decks)
