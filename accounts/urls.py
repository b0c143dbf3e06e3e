"""Page routes of accounts. Included at the site root, before allauth's own `accounts/` routes,
so our gated sign-up answers /accounts/signup/ (it keeps allauth's `account_signup` name)."""

from allauth.account.views import LoginView
from django.urls import path

from accounts import views
from veyltak_site.throttling import limit_posts

urlpatterns = [
    path("accounts/signup/", views.SignupView.as_view(), name="account_signup"),
    # allauth's sign-in, its posts counted per browser and per address (RATE_LIMITS).
    path("accounts/login/", limit_posts("sign_in")(LoginView.as_view()), name="account_login"),
    path("accounts/profile/", views.profile, name="accounts_profile"),
    path("accounts/profile/time-zone/", views.profile_time_zone, name="accounts_profile_time_zone"),
    path("accounts/export/", views.export, name="accounts_export"),
    path("accounts/delete/", views.delete, name="accounts_delete"),
    path("age-check/", views.age_check, name="age_check"),
]
