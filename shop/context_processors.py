"""What every page's header shows of the shop: a signed-in player's Signs, and once after
sign-up the welcome grant (templates/base.html)."""

from __future__ import annotations

from functools import cache

from shop import selectors

# Set by the welcome grant (shop.signals) in the browser that signed up; shown, then dropped,
# on the first page that browser opens signed in.
WELCOME_SESSION_KEY = "shop_welcome"


def signs(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    # Callables, so only a template that shows them asks (a template calls a callable), once:
    # the welcome is taken from the session by the page that says it, not by a message or
    # mail rendered on the way (allauth renders its messages with this context too).
    balance = cache(lambda: selectors.wallet_balance(user=user))
    welcome = cache(lambda: request.session.pop(WELCOME_SESSION_KEY, None))
    return {"header_signs": balance, "signs_welcome": welcome}
