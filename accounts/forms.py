"""Forms: the age-gated sign-up, the guest check, the profile and account deletion.

Every field that carries a date of birth is validated here and only passed on as a yes or no;
`sensitive_variables` keeps the value out of error reports.
"""

from __future__ import annotations

import datetime as dt

from allauth.account.adapter import get_adapter
from allauth.account.forms import AddEmailForm as AllauthAddEmailForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from allauth.core import context
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.mfa.base import forms as mfa_forms
from django import forms
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.views.decorators.debug import sensitive_variables

from accounts import gate, names, selectors, time_zones
from accounts.limits import login_failed_wait
from veyltak_site.throttling import too_many_requests

_INVALID_DATE = "Please enter a valid date."
_EMAIL_INDEX = "accounts_user_email_ci"  # the unique index of accounts migration 0003
_EARLIEST = dt.date(1900, 1, 1)


class BirthDateField(forms.DateField):
    """An HTML date input, ISO only (what the browser sends), with no hint of any limit."""

    widget = forms.DateInput(format="%Y-%m-%d", attrs={"type": "date", "autocomplete": "bday"})
    default_error_messages = {
        "required": "Please enter your date of birth.",
        "invalid": _INVALID_DATE,
    }

    def __init__(self, **kwargs):
        kwargs.setdefault("label", "Date of birth")
        kwargs.setdefault("input_formats", ["%Y-%m-%d"])
        super().__init__(**kwargs)

    @sensitive_variables("value", "parsed")
    def clean(self, value):
        parsed = super().clean(value)
        # A date from the future or before 1900 is a typo, not an answer: ask again, no lock.
        if parsed is not None and not (_EARLIEST <= parsed <= timezone.localdate()):
            raise forms.ValidationError(_INVALID_DATE, code="invalid")
        return parsed


class SignupForm(AllauthSignupForm):
    """allauth's sign-up with the gate: an under-age date fails validation, so no user is saved.

    `refused` tells the view to lock the browser and answer with the neutral refusal instead of
    the form (re-showing the form would invite another date).
    """

    handle = forms.CharField(
        label="Public name",
        required=False,
        max_length=64,
        help_text="Shown on leaderboards. Leave it empty and we make one up; you can change "
        "it on your profile.",
        widget=forms.TextInput(attrs={"autocomplete": "nickname", "spellcheck": "false"}),
    )
    birth_date = BirthDateField()
    field_order = ["email", "handle", "birth_date", "password1", "password2"]

    def __init__(self, *args, gate_confirmed: bool = False, **kwargs):
        self.refused = False
        self.gate_passed = False
        super().__init__(*args, **kwargs)
        # A browser that passed the guest check (and is not locked) was asked already: it is
        # not asked again. The view still takes the verdict under the gate's lock (gate.door),
        # so a refusal sent meanwhile wins. A date sent anyway is judged as ever: a refused
        # one refuses (and withdraws the pass), whichever form it came from.
        sent = self.is_bound and bool(self.data.get("birth_date"))
        if gate_confirmed and not sent:
            del self.fields["birth_date"]
            self.gate_passed = True

    def clean_handle(self):
        value = self.cleaned_data.get("handle") or ""
        if not names.normalise(value):
            return ""
        handle = names.clean_handle(value, emails=[self.cleaned_data.get("email") or ""])
        if selectors.handle_taken(handle):
            raise forms.ValidationError(
                "Another player has that handle: choose another.", code="handle_taken"
            )
        return handle

    def validate_unique_email(self, value):
        # allauth counts an address as in use when any account lists it, confirmed or not, so
        # an address added to some other account and never confirmed kept its owner out (a
        # "check your email" page and no mail). In use means held (selectors.email_held);
        # the answer is allauth's either way: the same page, and a mail to the address.
        self.account_already_exists = selectors.email_held(value)
        return get_adapter().validate_unique_email(value)

    def try_save(self, request):
        """Save the account, or answer as for an address in use when a sign-up with the same
        address, sent at the same moment, saved first.

        The form's own check found no account with the address, but another request may have
        been between its check and its insert: the database's unique index refuses the second
        (accounts 0003), and that request takes allauth's path for an address in use (an
        "account already exists" mail, the same "check your email" answer), so parallel
        sign-ups make exactly one account and still say nothing about who holds the address.
        """
        try:
            with transaction.atomic():
                return super().try_save(request)
        except IntegrityError as exc:
            if _EMAIL_INDEX not in str(exc):
                raise
        self.account_already_exists = True
        return super().try_save(request)

    @sensitive_variables("birth_date")
    def clean_birth_date(self):
        birth_date = self.cleaned_data["birth_date"]
        if not gate.passes(birth_date):
            self.refused = True
            raise forms.ValidationError(gate.REFUSAL_MESSAGE, code="refused")
        self.gate_passed = True
        # Only the verdict goes on: the date is not needed (nor kept) past this line.
        return None


class AddEmailForm(AllauthAddEmailForm):
    """The email page's "add an address": never an address another account holds, whatever
    its case (issue 27, S3). allauth's enumeration prevention lets it through unconfirmed, so
    one address sat on two accounts. Like allauth where uniqueness and enumeration prevention
    meet, uniqueness wins: the form says the address is in use, to a signed-in player only
    (sign-up still says nothing), and sends no mail."""

    def clean_email(self):
        value = super().clean_email()
        if selectors.email_held(value, exclude_user=self.user):
            raise get_adapter().validation_error("email_taken")
        return value


class AgeCheckForm(forms.Form):
    birth_date = BirthDateField()


class ProfileForm(forms.Form):
    """Names are checked by the service (accounts/names.py); the view puts its refusals on
    the field they belong to."""

    handle = forms.CharField(
        label="Public name",
        max_length=64,
        help_text="Shown on leaderboards, to everyone: 3 to 24 letters or digits, with _ - or "
        ". between them.",
        widget=forms.TextInput(attrs={"autocomplete": "nickname", "spellcheck": "false"}),
    )
    display_name = forms.CharField(
        label="Display name",
        max_length=64,
        required=False,
        help_text="Shown to you only, on this page. Leave it empty to use your public name.",
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )


class TimeZoneForm(forms.Form):
    """The zone the player's day turns in; checked again by the service."""

    time_zone = forms.ChoiceField(
        label="Time zone",
        help_text="Your daily jobs turn over at midnight here. A change never makes a day "
        "shorter than 20 hours.",
    )

    def __init__(self, *args, current: str = time_zones.DEFAULT, **kwargs):
        super().__init__(*args, **kwargs)
        listed = time_zones.choices()
        # An alias a browser sent (US/Eastern) is kept selectable as the player's own.
        names_ = listed if current in listed else (current, *listed)
        self.fields["time_zone"].choices = [(z, z.replace("_", " ")) for z in names_]
        self.fields["time_zone"].initial = current


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    @sensitive_variables("password")
    def clean_password(self):
        password = self.cleaned_data["password"]
        # allauth's reauthentication counts failures against the same `login_failed` limit as
        # sign-in, so this form is no side door for guessing passwords.
        if not get_adapter().reauthenticate(self.user, password):
            raise forms.ValidationError("That password is not right.", code="wrong_password")
        return password


class _CodeLimitAnswers429:
    """allauth's second-factor forms count wrong codes against `login_failed` (5 per account
    in 5 minutes, ACCOUNT_RATE_LIMITS) and, over it, show the form again with "Too many failed
    login attempts". Every limited door of the site answers 429 `rate_limited` with
    Retry-After instead (veyltak_site.throttling), so these do too (MFA_FORMS in settings)."""

    def clean_code(self):
        try:
            return super().clean_code()
        except forms.ValidationError as exc:
            if exc.code == "too_many_login_attempts":
                answer = too_many_requests(context.request, login_failed_wait())
                raise ImmediateHttpResponse(answer) from None
            raise


class MFAAuthenticateForm(_CodeLimitAnswers429, mfa_forms.AuthenticateForm):
    """The code asked at sign-in."""


class MFAReauthenticateForm(_CodeLimitAnswers429, mfa_forms.ReauthenticateForm):
    """The code asked again before a sensitive change (and by the admin: accounts/admin.py)."""
