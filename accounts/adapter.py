"""allauth adapter: sign-up is closed to a locked browser, and only the gate attests."""

import contextlib
import secrets
from types import SimpleNamespace

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import user_username
from allauth.core.exceptions import ImmediateHttpResponse
from django import forms
from django.conf import settings
from django.db import transaction

from accounts import gate, selectors, services
from accounts.limits import login_failed_wait
from veyltak_site.exceptions import ApplicationError
from veyltak_site.throttling import too_many_requests


class AccountAdapter(DefaultAccountAdapter):
    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        # The site's own name in every mail (templates/account/email/), never the host a
        # request came in on: without django.contrib.sites allauth names the site after it
        # ("Hello from 127.0.0.1:8002!").
        request = self.request
        site = SimpleNamespace(
            name=settings.SITE_NAME, domain=request.get_host() if request else settings.SITE_NAME
        )
        context = {
            "site_name": settings.SITE_NAME,
            "site_url": request.build_absolute_uri("/") if request else "",
            "current_site": site,
            **context,
        }
        super().send_mail(template_prefix, email, context)

    def is_open_for_signup(self, request) -> bool:
        # Every sign-up door (ours, allauth's own views, a social provider if one is ever
        # enabled: its adapter asks this one) is shut while the browser is locked.
        return not gate.is_locked(request) and super().is_open_for_signup(request)

    def pre_login(self, request, user, **kwargs):
        # The ruling (docs/security.md): a refused browser may still sign in to an account
        # that passed the gate (its holder passed it); signing in to one that has not is
        # another door, refused for the day like the rest.
        response = super().pre_login(request, user, **kwargs)
        if (
            response is None
            and gate.is_locked(request)
            and not selectors.user_adult_confirmed(user=user)
        ):
            from allauth.account.internal.stagekit import clear_login

            from accounts.views import refusal

            clear_login(request)
            return refusal(request)
        return response

    def pre_authenticate(self, request, **credentials):
        # allauth refuses a sign-in after too many failures (per email and per address) with
        # a form error; every limited door of the site answers 429 `rate_limited` with
        # Retry-After instead (veyltak_site.throttling).
        try:
            super().pre_authenticate(request, **credentials)
        except forms.ValidationError as exc:
            if getattr(exc, "code", None) == "too_many_login_attempts":
                raise ImmediateHttpResponse(
                    too_many_requests(request, login_failed_wait())
                ) from None
            raise

    def populate_username(self, request, user) -> None:
        # The username is internal (sign-in is by email; the public name is the profile's
        # handle): a random one, where allauth would derive it from the email.
        if not user_username(user):
            user_username(user, f"u-{secrets.token_hex(8)}")

    def save_user(self, request, user, form, commit=True):
        with transaction.atomic():
            user = super().save_user(request, user, form, commit=commit)
            handle = getattr(form, "cleaned_data", {}).get("handle")
            if commit and handle:
                # Taken between the form's check and now: the generated handle stays, and
                # the player changes it on the profile.
                with contextlib.suppress(ApplicationError):
                    services.profile_update(user=user, handle=handle)
            # Only a form that ran the gate can attest. Any other way in (a social sign-up, a
            # createsuperuser) makes an account without a confirmation, and that account must
            # pass the guest check before it can play: the gate fails closed.
            if commit and getattr(form, "gate_passed", False):
                services.profile_attest(user=user)
        return user
