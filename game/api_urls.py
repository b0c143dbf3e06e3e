from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from game import api, api_challenges, api_debrief, api_featured, api_jobs, api_preview

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", api.ApiDocsView.as_view(), name="api-docs"),
    path("crew/", api.CrewListApi.as_view(), name="api-crew"),
    path("rivals/", api.RivalListApi.as_view(), name="api-rivals"),
    path("encounters/", api.EncounterListApi.as_view(), name="api-encounters"),
    path("decks/", api.DeckListApi.as_view(), name="api-decks"),
    path("decks/mine/", api.SavedDeckListApi.as_view(), name="api-saved-decks"),
    path("decks/mine/<int:deck_id>/", api.SavedDeckDetailApi.as_view(), name="api-saved-deck"),
    path("heists/", api.HeistStartApi.as_view(), name="api-heists"),
    path("heists/<uuid:heist_id>/", api.HeistDetailApi.as_view(), name="api-heist"),
    path("heists/<uuid:heist_id>/seal/", api.HeistSealApi.as_view(), name="api-heist-seal"),
    path("heists/<uuid:heist_id>/replay/", api.HeistReplayApi.as_view(), name="api-heist-replay"),
    path(
        "heists/<uuid:heist_id>/preview/",
        api_preview.HeistPreviewApi.as_view(),
        name="api-heist-preview",
    ),
    path(
        "heists/<uuid:heist_id>/debrief/",
        api_debrief.HeistDebriefApi.as_view(),
        name="api-heist-debrief",
    ),
    path(
        "heists/<uuid:heist_id>/retry/", api_debrief.HeistRetryApi.as_view(), name="api-heist-retry"
    ),
    path(
        "heists/<uuid:heist_id>/challenge/",
        api_challenges.HeistChallengeApi.as_view(),
        name="api-heist-challenge",
    ),
    # Any other id: the same 404 as a heist that does not exist (not in the schema).
    path("heists/<str:heist_id>/", api.NotAHeistDetailApi.as_view()),
    path("heists/<str:heist_id>/seal/", api.NotAHeistSealApi.as_view()),
    path("heists/<str:heist_id>/replay/", api.NotAHeistReplayApi.as_view()),
    path("heists/<str:heist_id>/preview/", api.NotAHeistDetailApi.as_view()),
    path("heists/<str:heist_id>/debrief/", api.NotAHeistDetailApi.as_view()),
    path("heists/<str:heist_id>/retry/", api_debrief.NotAHeistRetryApi.as_view()),
    path("heists/<str:heist_id>/challenge/", api_challenges.NotAHeistChallengeApi.as_view()),
]

urlpatterns += [
    path("challenges/<slug:slug>/", api_challenges.ChallengeApi.as_view(), name="api-challenge"),
    path(
        "challenges/<slug:slug>/heists/",
        api_challenges.ChallengeStartApi.as_view(),
        name="api-challenge-start",
    ),
]

urlpatterns += [
    path("featured/", api_featured.FeaturedApi.as_view(), name="api-featured"),
    path(
        "featured/<slug:slug>/heists/",
        api_featured.FeaturedStartApi.as_view(),
        name="api-featured-start",
    ),
    path(
        "featured/<slug:slug>/leaderboard/",
        api_featured.FeaturedLeaderboardApi.as_view(),
        name="api-featured-leaderboard",
    ),
    path(
        "featured/<slug:slug>/replays/<uuid:heist_id>/",
        api_featured.FeaturedReplayApi.as_view(),
        name="api-featured-replay",
    ),
]

urlpatterns += [path("jobs/", api_jobs.JobsApi.as_view(), name="api-jobs")]
