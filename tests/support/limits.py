"""The rate limits as configured (veyltak_site/settings.py), before any test changes them: the
root conftest imports this first, at start-up."""

import copy

from django.conf import settings

DEFAULT_RATE_LIMITS = copy.deepcopy(settings.RATE_LIMITS)
