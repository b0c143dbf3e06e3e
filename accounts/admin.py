from allauth.account.authentication import get_authentication_records
from allauth.account.decorators import secure_admin_login
from allauth.mfa.models import Authenticator
from allauth.mfa.utils import is_mfa_enabled
from django.contrib import admin
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode

from accounts.models import Profile


def staff_second_factor(user) -> bool:
    """Staff (who can grant Signs) reach the admin only with a second factor set up: an
    authenticator app (TOTP). Signing in then asks for its code (allauth.mfa)."""
    return is_mfa_enabled(user, [Authenticator.Type.TOTP])


def session_passed_second_factor(request) -> bool:
    """This session, not merely the account, passed the second factor: allauth records each
    step of a sign-in in the session (``account_authentication_methods``, kept for the user
    who signed in), and a code accepted at sign-in or when asked again is a ``mfa`` record.
    A session signed in with the password before the account had a factor has none, nor has
    one that only set the factor up (that proves the app holds the secret, not who signed in).
    """
    records = get_authentication_records(request, request.user)
    return any(record.get("method") == "mfa" for record in records)


_has_permission = admin.site.has_permission


def has_permission(request) -> bool:
    return (
        _has_permission(request)
        and staff_second_factor(request.user)
        and session_passed_second_factor(request)
    )


def admin_login(login):
    # The admin's own login form has no rate limit. Sending it to allauth's sign-in puts staff
    # behind the same limits (per account and per address) as everyone else, and its second
    # factor. Signed-in staff without one are sent to set it up first; with one, but in a
    # session that has not passed it, to type its code (allauth's reauthentication, which
    # records the code in the session and counts wrong ones like a sign-in's).
    secured = secure_admin_login(login)

    def view(request, *args, **kwargs):
        user = request.user
        if user.is_authenticated and user.is_staff:
            query = urlencode({"next": request.GET.get("next") or reverse("admin:index")})
            if not staff_second_factor(user):
                return redirect(f"{reverse('mfa_activate_totp')}?{query}")
            if not session_passed_second_factor(request):
                return redirect(f"{reverse('mfa_reauthenticate')}?{query}")
        return secured(request, *args, **kwargs)

    return view


admin.site.has_permission = has_permission
admin.site.login = admin_login(admin.site.login)


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "handle", "display_name", "adult_confirmed_at", "gate_version"]
    search_fields = ["user__username", "user__email", "handle", "display_name"]
    readonly_fields = ["adult_confirmed_at", "gate_version", "created_at"]
    raw_id_fields = ["user"]
