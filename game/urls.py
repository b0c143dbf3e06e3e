from django.urls import path

from game import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.play, name="play"),
    path("deck/", views.deck, name="deck"),
    path("how-to-play/", views.how_to_play, name="how-to-play"),
    path("rules/", views.rules, name="rules"),
    path("featured/", views.featured, name="featured"),
    path("featured/<slug:slug>/", views.featured, name="featured-slot"),
    path("featured/<slug:slug>/play/", views.featured_play, name="featured-play"),
    path("board/<str:version>.json", views.board_data, name="board-data"),
    path("heists/<uuid:heist_id>/", views.heist, name="heist"),
    path("heists/<uuid:heist_id>/result/", views.heist_result, name="heist-result"),
    path("heists/<uuid:heist_id>/replay/", views.heist_replay, name="heist-replay"),
    path("heists/<uuid:heist_id>/retry/", views.heist_retry_page, name="heist-retry"),
    path("heists/<uuid:heist_id>/challenge/", views.challenge_make, name="heist-challenge"),
    path("challenges/<slug:slug>/", views.challenge, name="challenge"),
    path("challenges/<slug:slug>/play/", views.challenge_play, name="challenge-play"),
    path(
        "challenges/<slug:slug>/vs/<uuid:heist_id>/",
        views.challenge_compare,
        name="challenge-compare",
    ),
]
