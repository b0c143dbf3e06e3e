"""Public handles and display names (issue 17, finding 8): every account has a handle not
derived from its email, chosen at sign-up or generated and changeable; names refuse invisible
and direction-changing characters; handles are unique whatever their case."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client

from accounts import names, services
from accounts.models import Profile
from tests.support.accounts import PASSWORD, confirm_email, make_player, years_ago
from veyltak_site.exceptions import ApplicationError

User = get_user_model()

# Characters that show nothing or turn the text around them: zero-width space, joiner and
# non-joiner, word joiner, BOM, the bidirectional embeddings, overrides and isolates, the
# Arabic letter mark, soft hyphen, a control, line and paragraph separators, the Hangul filler,
# the blank Braille cell, a variation selector, a tag character, a private-use character.
HOSTILE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u202a",
    "\u202b",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
    "\u00ad",
    "\x07",
    "\u2028",
    "\u2029",
    "\u3164",
    "\u2800",
    "\ufe0f",
    "\U000e0041",
    "\ue000",
]


# --- the rules -----------------------------------------------------------------------------------


@pytest.mark.parametrize("char", HOSTILE)
def test_a_handle_with_an_invisible_or_direction_character_is_refused(char):
    for value in (f"night{char}owl", f"{char}nightowl", f"nightowl{char}"):
        with pytest.raises(ValidationError):
            names.clean_handle(value)


@pytest.mark.parametrize("char", HOSTILE)
def test_a_display_name_with_an_invisible_or_direction_character_is_refused(char):
    with pytest.raises(ValidationError) as caught:
        names.clean_display_name(f"Night{char} Owl")
    assert caught.value.code in ("invisible_character", "space")


@pytest.mark.parametrize(
    "value",
    ["ab", "x" * 25, "night owl", "night@owl", "-owl", "owl-", "ni--ght", "a" + "\u0301" * 4],
)
def test_handle_shape_is_checked(value):
    with pytest.raises(ValidationError):
        names.clean_handle(value)


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        ("Night_Owl", "Night_Owl"),
        ("  owl.42 ", "owl.42"),
        ("\uff2e\uff49\uff47\uff48\uff54", "Night"),  # full-width letters are the plain ones
        ("Zoë-Łódź", "Zoë-Łódź"),
        ("夜のフクロウ", "夜のフクロウ"),
        ("ночная_сова", "ночная_сова"),
    ],
)
def test_handles_of_any_script_are_kept_as_typed(value, stored):
    assert names.clean_handle(value) == stored


def test_a_handle_may_not_be_the_email_or_its_first_part():
    for value in ("jo.smith", "JO.SMITH", "jo.smith@example.com"):
        with pytest.raises(ValidationError) as caught:
            names.clean_handle(value, emails=["Jo.Smith@example.com"])
        assert caught.value.code in ("handle_is_email", "handle_characters")
    assert names.clean_handle("jo.smith.plays", emails=["jo.smith@example.com"])


def test_display_names_keep_ordinary_spaces_and_refuse_blank_ones():
    assert names.clean_display_name("  Night   Owl ") == "Night   Owl"
    assert names.clean_display_name("") == ""
    # Unicode spaces are plain spaces once normalised (NFKC); one without a plain form is not.
    assert names.clean_display_name("Night\u00a0Owl") == "Night Owl"
    assert names.clean_display_name("Night\u3000Owl") == "Night Owl"
    for value in ("Night\u1680Owl", "___", "x" * 41, " \u200b "):
        with pytest.raises(ValidationError):
            names.clean_display_name(value)


def test_generated_handles_follow_the_rules_and_differ():
    handles = {names.generated_handle() for _ in range(200)}
    assert len(handles) == 200
    for handle in handles:
        assert names.clean_handle(handle) == handle


# --- every account has one ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_sign_up_without_a_choice_gets_a_handle_not_from_its_email():
    user = make_player(Client(), email="jo.smith@example.com")
    handle = Profile.objects.get(user=user).handle
    assert re.fullmatch(r"crew-[a-z0-9]{8}", handle)
    assert "jo" not in user.username and "smith" not in user.username  # internal name too
    assert "smith" not in handle


@pytest.mark.django_db
def test_a_sign_up_may_choose_its_handle_and_a_taken_one_is_refused():
    browser = Client()
    response = browser.post(
        "/accounts/signup/",
        {
            "email": "owl@example.com",
            "handle": "Night_Owl",
            "birth_date": years_ago(30).isoformat(),
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    confirm_email(browser, "owl@example.com")
    assert browser.get("/api/v1/me/").json()["username"] == "Night_Owl"
    again = Client().post(
        "/accounts/signup/",
        {
            "email": "other@example.com",
            "handle": "night_owl",
            "birth_date": years_ago(30).isoformat(),
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert again.status_code == 200
    assert "Another player has that handle" in again.content.decode()
    assert not User.objects.filter(email="other@example.com").exists()


@pytest.mark.django_db
def test_accounts_made_outside_sign_up_get_a_handle_too():
    user = User.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    assert Profile.objects.get(user=user).handle.startswith("crew-")


@pytest.mark.django_db
def test_the_profile_changes_the_handle_and_explains_a_refusal():
    browser = Client()
    user = make_player(browser, email="me@example.com")
    make_player(Client(), email="you@example.com")
    Profile.objects.exclude(user=user).update(handle="Taken")
    ok = browser.post("/accounts/profile/", {"handle": "Lamplighter", "display_name": "Lamp"})
    assert ok.status_code == 302
    assert Profile.objects.get(user=user).handle == "Lamplighter"
    for handle, words in (
        ("taken", "Another player has that handle"),
        ("lamp\u202elighter", "visible characters"),
        ("me", "3 to 24"),
        ("ME", "3 to 24"),
    ):
        page = browser.post("/accounts/profile/", {"handle": handle, "display_name": "Lamp"})
        assert page.status_code == 200, handle
        assert words in page.content.decode(), handle
    bad_name = browser.post(
        "/accounts/profile/", {"handle": "Lamplighter", "display_name": "Lamp\u200b"}
    )
    assert "visible characters" in bad_name.content.decode()
    assert Profile.objects.get(user=user).handle == "Lamplighter"
    assert Profile.objects.get(user=user).display_name == "Lamp"


@pytest.mark.django_db
def test_handles_are_unique_whatever_the_case_in_the_database():
    one = User.objects.create_user("one", "", PASSWORD)
    two = User.objects.create_user("two", "", PASSWORD)
    Profile.objects.filter(user=one).update(handle="Night_Owl")
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.filter(user=two).update(handle="NIGHT_OWL")
    with pytest.raises(ApplicationError) as caught:
        services.profile_update(user=two, handle="night_owl")
    assert caught.value.code == "handle_taken"


@pytest.mark.django_db
def test_no_part_of_the_email_is_shown_as_a_name():
    browser = Client()
    user = make_player(browser, email="secret.person@example.com")
    public = browser.get("/api/v1/me/").json()["username"]
    assert public == Profile.objects.get(user=user).handle
    assert "secret" not in public
    signed_in = Client()
    page = signed_in.post(
        "/accounts/login/", {"login": "secret.person@example.com", "password": PASSWORD}
    )
    assert page.status_code == 302
    home = signed_in.get("/").content.decode()
    assert "secret.person" not in home  # e.g. allauth's "signed in as ..." message
    profile = signed_in.get("/accounts/profile/").content.decode()
    assert public in profile and "secret.person" not in profile.split("Account")[0]


# --- existing accounts (the data migration) -------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_migrations_give_existing_accounts_handles_and_resolve_duplicate_emails():
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection_for_test())
    before = [("accounts", "0002_gate_record")]
    latest = executor.loader.graph.leaf_nodes("accounts")
    executor.migrate(before)
    others = [leaf for leaf in executor.loader.graph.leaf_nodes() if leaf[0] != "accounts"]
    apps = executor.loader.project_state(before + others).apps
    OldUser = apps.get_model("auth", "User")
    OldProfile = apps.get_model("accounts", "Profile")
    OldAddress = apps.get_model("account", "EmailAddress")
    first = OldUser.objects.create(username="sam", email="sam@example.com", password="x")
    later = OldUser.objects.create(username="sam2", email="SAM@example.com", password="x")
    alone = OldUser.objects.create(username="kim", email="kim@example.com", password="x")
    OldProfile.objects.create(user_id=first.pk, display_name="")
    for user in (first, later):
        OldAddress.objects.create(user_id=user.pk, email=user.email.lower(), primary=True)

    executor = MigrationExecutor(connection_for_test())
    executor.migrate(latest)
    users = {u.username: u for u in User.objects.all()}
    assert users["sam"].email == "sam@example.com" and users["sam"].is_active
    assert users["sam2"].email == "" and not users["sam2"].is_active
    assert list(EmailAddress_for("sam2")) == []
    handles = dict(Profile.objects.values_list("user__username", "handle"))
    assert set(handles) == {"sam", "sam2", "kim"}
    assert len({h.lower() for h in handles.values()}) == 3
    assert all(re.fullmatch(r"crew-[a-z0-9]{8}", h) for h in handles.values())
    assert alone.pk in set(Profile.objects.values_list("user_id", flat=True))


def connection_for_test():
    from django.db import connection

    return connection


def EmailAddress_for(username):
    from allauth.account.models import EmailAddress

    return EmailAddress.objects.filter(user__username=username).values_list("email", flat=True)


# --- look-alikes, reserved words and case-fold twins (issue 27, S6) ------------------------------


def _player(handle: str):
    user = User.objects.create_user(f"u-{abs(hash(handle))}", "", PASSWORD)
    services.profile_update(user=user, handle=handle)
    return user


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("held", "look_alike"),
    [
        ("nightowl", "n\u0456ght\u043ewl"),  # Cyrillic i and o (U+0456, U+043E)
        ("paypal", "\u0440\u0430yp\u0430l"),  # Cyrillic r and a (U+0440, U+0430)
        ("crewmate", "crewrnate"),  # m and rn (TR39 maps m to rn)
        ("shadow1", "shadowl"),  # digit one and small L
        ("SHADOW1", "shadowI"),  # and capital i, whatever the case
        ("vault0", "vaultO"),  # digit zero and capital O
        ("Zoë-x", "Zoe\u0308-x"),  # precomposed and combining diaeresis
        ("\u0441\u043e\u0441\u043e", "coco"),  # an all-Cyrillic word, its Latin look-alike
    ],
)
def test_a_look_alike_of_another_players_handle_is_refused(held, look_alike):
    _player(held)
    other = User.objects.create_user("other", "", PASSWORD)
    with pytest.raises(ApplicationError) as caught:
        services.profile_update(user=other, handle=look_alike)
    assert caught.value.code == "handle_taken"
    assert selectors_handle(other) != look_alike


def selectors_handle(user):
    return Profile.objects.get(user=user).handle


@pytest.mark.django_db
@pytest.mark.parametrize(("held", "twin"), [("straße-x", "STRASSE-x"), ("STRASSE-x", "straße-x")])
def test_case_fold_twins_are_one_handle(held, twin):
    _player(held)
    other = User.objects.create_user("other", "", PASSWORD)
    with pytest.raises(ApplicationError) as caught:
        services.profile_update(user=other, handle=twin)
    assert caught.value.code == "handle_taken"


@pytest.mark.parametrize(
    "value",
    ["admin", "Admin", "ADMIN_1", "\u0430dmin", "staff", "Staff-2", "VEYLTAK", "veyltak_team",
     "team.veyltak", "moderator", "support", "system", "root", "official", "veyItak"],
)  # fmt: skip
def test_reserved_words_are_refused_as_handles(value):
    with pytest.raises(ValidationError) as caught:
        names.clean_handle(value)
    assert caught.value.code == "handle_reserved"


@pytest.mark.parametrize("value", ["badminton", "staffordshire", "administrator_of_fun", "roots"])
def test_words_that_merely_hold_a_reserved_one_are_fine(value):
    assert names.clean_handle(value) == value


@pytest.mark.django_db
def test_the_sign_up_form_refuses_look_alikes_and_reserved_words():
    _player("nightowl")
    for handle, words in (
        ("n\u0456ghtowl", "Another player has that handle"),
        ("Admin", "reserved"),
    ):
        page = Client().post(
            "/accounts/signup/",
            {
                "email": "new@example.com",
                "handle": handle,
                "birth_date": years_ago(30).isoformat(),
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
        assert page.status_code == 200, handle
        assert words in page.content.decode(), handle
    assert not User.objects.filter(email="new@example.com").exists()


@pytest.mark.django_db
def test_the_database_refuses_two_handles_with_one_look_alike_key():
    from accounts.models import HandleKey

    one = _player("nightowl")
    two = User.objects.create_user("two", "", PASSWORD)
    assert names.handle_keys("n\u0456ghtowl") <= set(
        HandleKey.objects.filter(profile__user=one).values_list("key", flat=True)
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        HandleKey.objects.create(profile=two.profile, key=min(names.handle_keys("nightowl")))
    # A handle saved any other way keeps its keys: the save fails whole.
    with pytest.raises(IntegrityError), transaction.atomic():
        profile = Profile.objects.get(user=two)
        profile.handle = "n\u0456ghtowl"
        profile.save()
    assert Profile.objects.get(user=two).handle != "n\u0456ghtowl"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_look_alikes_chosen_at_the_same_moment_make_one_handle():
    import threading

    from django.db import connection

    users = [User.objects.create_user(f"racer{i}", "", PASSWORD) for i in range(6)]
    spellings = [
        "nightowl",
        "n\u0456ghtowl",
        "NIGHTOWL",
        "nightow\u217c",
        "n\u0456ght\u043ewl",
        "Nightowl",
    ]
    barrier = threading.Barrier(len(users))
    outcomes: list = []

    def choose(user, handle):
        try:
            barrier.wait(timeout=10)
            services.profile_update(user=user, handle=handle)
            outcomes.append("ok")
        except ApplicationError as exc:
            outcomes.append(exc.code)
        except BaseException as exc:
            outcomes.append(repr(exc))
        finally:
            connection.close()

    threads = [
        threading.Thread(target=choose, args=pair) for pair in zip(users, spellings, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["handle_taken"] * 5 + ["ok"], outcomes
    holders = Profile.objects.filter(handle_keys__key__in=names.handle_keys("nightowl"))
    assert holders.distinct().count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_oldest_of_look_alike_handles_and_renames_reserved_ones():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from accounts.models import HandleKey

    executor = MigrationExecutor(connection)
    before = [("accounts", "0007_email_claims")]
    latest = executor.loader.graph.leaf_nodes("accounts")
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    OldUser = apps.get_model("auth", "User")
    OldProfile = apps.get_model("accounts", "Profile")
    for name, handle in (("first", "nightowl"), ("later", "n\u0456ghtowl"), ("boss", "Admin")):
        user = OldUser.objects.create(username=name, email=f"{name}@example.com", password="x")
        OldProfile.objects.create(user_id=user.pk, handle=handle, display_name="")

    MigrationExecutor(connection).migrate(latest)
    handles = dict(Profile.objects.values_list("user__username", "handle"))
    assert handles["first"] == "nightowl"
    assert re.fullmatch(r"crew-[a-z0-9]{8}", handles["later"]), handles
    assert re.fullmatch(r"crew-[a-z0-9]{8}", handles["boss"]), handles
    for profile in Profile.objects.all():
        assert set(HandleKey.objects.filter(profile=profile).values_list("key", flat=True)) == (
            names.handle_keys(profile.handle)
        )
