from functools import wraps
from urllib.parse import urlencode

from django.shortcuts import redirect
from django.urls import reverse

from accounts.selectors import adult_confirmed


def adult_required(view):
    """Pages that start or show play: send an unchecked visitor to the check, then back."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if adult_confirmed(request):
            return view(request, *args, **kwargs)
        return redirect(f"{reverse('age_check')}?{urlencode({'next': request.get_full_path()})}")

    return wrapper
