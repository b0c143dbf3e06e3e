"""Pages: the age-gated sign-up, the guest check, profile, export and deletion. Thin: the
decisions live in gate, services and selectors."""

from __future__ import annotations

from allauth.account import views as allauth_views
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods

from accounts import extensions, gate, selectors, services
from accounts.forms import AgeCheckForm, DeleteAccountForm, ProfileForm, TimeZoneForm
from veyltak_site import throttling
from veyltak_site.exceptions import ApplicationError


def refusal(request: HttpRequest) -> HttpResponse:
    """The one neutral answer for a refused or locked browser, on every HTML door."""
    return render(
        request,
        "accounts/refusal.html",
        {"title": gate.REFUSAL_TITLE, "message": gate.REFUSAL_MESSAGE},
        status=403,
    )


def _next_url(request: HttpRequest) -> str:
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return reverse("home")


@method_decorator(throttling.limit_posts("sign_up"), name="dispatch")
@method_decorator(gate.gate_door, name="dispatch")
class SignupView(allauth_views.SignupView):
    """allauth's sign-up, routed in front of it: a locked browser or an under-age date gets the
    refusal page, and the lock cookie is written on the way out (`gate_door`)."""

    # allauth's own dispatch marks only the password fields sensitive, and the innermost
    # decorator wins; `post` runs inside it, so marking here is what error reports honour.
    @method_decorator(sensitive_post_parameters("birth_date", "password1", "password2"))
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)

    def closed(self):
        return refusal(self.request)

    def get_form_kwargs(self):
        # A guest who passed the check in this browser is not asked for the date again.
        return {**super().get_form_kwargs(), "gate_confirmed": gate.session_confirmed(self.request)}

    def form_valid(self, form):
        # The form found the date passes; the verdict for this browser and the account made
        # from it are one serialised step, so a refusal sent at the same moment either comes
        # first (locked: no account) or after (the account passed before it).
        with gate.door(self.request) as verdict:
            if verdict == "locked":
                return refusal(self.request)
            return super().form_valid(form)

    def form_invalid(self, form):
        if getattr(form, "refused", False):
            gate.refuse(self.request)
            return refusal(self.request)
        return super().form_invalid(form)


@throttling.limit_posts("age_check")
@gate.gate_door
@sensitive_post_parameters("birth_date")
@require_http_methods(["GET", "POST"])
def age_check(request: HttpRequest) -> HttpResponse:
    next_url = _next_url(request)
    if request.user.is_authenticated and selectors.user_adult_confirmed(user=request.user):
        return redirect(next_url)
    if gate.is_locked(request):
        return refusal(request)
    if request.method == "GET" and selectors.adult_confirmed(request):
        return redirect(next_url)
    form = AgeCheckForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        try:
            services.age_check(request=request, birth_date=form.cleaned_data["birth_date"])
        except ApplicationError:
            return refusal(request)
        return redirect(next_url)
    return render(request, "accounts/age_check.html", {"form": form, "next": next_url})


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    user = request.user
    if request.method == "POST":
        form = ProfileForm(request.POST)
        if form.is_valid():
            try:
                services.profile_update(
                    user=user,
                    handle=form.cleaned_data["handle"],
                    display_name=form.cleaned_data["display_name"],
                )
            except ApplicationError as exc:
                for field, errors in (exc.fields or {"handle": [exc.message]}).items():
                    for error in errors:
                        form.add_error(field, error)
            else:
                messages.success(request, "Your names are saved.")
                return redirect("accounts_profile")
    else:
        current = selectors.profile_get(user=user)
        form = ProfileForm(
            initial={
                "handle": current.handle if current else "",
                "display_name": current.display_name if current else "",
            }
        )
    return render(
        request,
        "accounts/profile.html",
        {
            "form": form,
            "display_name": selectors.display_name(user=user),
            "handle": selectors.public_handle(user=user),
            # Beside the name: the title the player wears (the shop registers it).
            "name_titles": extensions.name_titles(user),
            "time_zone_form": TimeZoneForm(current=selectors.time_zone(user=user)),
            # What other apps show here (accounts.extensions): game's record and heists played,
            # the shop's wallet.
            "sections": extensions.profile_sections(user),
        },
    )


@login_required
@require_http_methods(["POST"])
def profile_time_zone(request: HttpRequest) -> HttpResponse:
    """The profile's time zone form (a select, so a bad value is a crafted one: said, not
    kept)."""
    current = selectors.time_zone(user=request.user)
    form = TimeZoneForm(request.POST, current=current)
    if not form.is_valid():
        messages.error(request, "That time zone is not one we know: choose one from the list.")
        return redirect("accounts_profile")
    try:
        name, changed = services.time_zone_set(
            user=request.user, time_zone=form.cleaned_data["time_zone"]
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            f"Your time zone is {name} now." if changed else f"Your time zone stays {name}.",
        )
    return redirect("accounts_profile")


@login_required
@require_GET
def export(request: HttpRequest) -> JsonResponse:
    data = {
        "format": "veyltak-export/1",
        "exported_at": timezone.now().isoformat(),
        **selectors.account_export(user=request.user),
    }
    response = JsonResponse(data, json_dumps_params={"indent": 2})
    response["Content-Disposition"] = 'attachment; filename="veyltak-my-data.json"'
    return response


@login_required
@sensitive_post_parameters("password")
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        services.account_delete(user=request.user)
        logout(request)
        messages.success(request, "Your account and its personal data have been deleted.")
        return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})
