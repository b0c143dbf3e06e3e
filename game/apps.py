from django.apps import AppConfig


class GameConfig(AppConfig):
    name = "game"
    verbose_name = "Heists"

    def ready(self) -> None:
        from accounts import extensions
        from game import signals  # noqa: F401  (connects the receivers)
        from game.presenters import profile, rating
        from game.presenters.jobs import export_jobs
        from game.views.jobs import jobs_profile

        # accounts never imports game: game fills its seams (DESIGN.md section 2).
        # Before the shop's wallet (order 10), as the profile and the export have always shown
        # the heists first.
        extensions.register_profile_section(
            "heists", template="game/_profile_heists.html", context=profile.profile_context, order=5
        )
        # Jobs first: what there is to do today.
        extensions.register_profile_section(
            "jobs", template="game/_profile_jobs.html", context=jobs_profile, order=3
        )
        extensions.register_export_section("heists", data=profile.export_heists, order=1)
        extensions.register_export_section("decks", data=profile.export_decks, order=2)
        # The rating (DESIGN.md section 11): above the heists, in the export, and in /me.
        extensions.register_profile_section(
            "rating", template="game/_profile_rating.html", context=rating.profile_rating, order=4
        )
        extensions.register_export_section("rating", data=rating.export_rating, order=3)
        extensions.register_me_field("rating", field=rating.me_field(), value=rating.me_rating)
        extensions.register_export_section("jobs", data=export_jobs, order=4)
