import os
import sys

from django.core.wsgi import get_wsgi_application

from veyltak_site.env import env_float

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")
application = get_wsgi_application()

# A web process runs several request threads under one GIL: a thread whose query has answered
# waits for the GIL until the thread holding it is asked to let go, after 5 ms by Python's
# default. At 1 ms a busy seal holds up the other threads' answers for less (the seal's p95
# under bench/capacity.py: docs/deploy.md); the CPU per seal stays the same. Only the web's
# processes load this module; docs/configuration.md has the variable.
sys.setswitchinterval(env_float("WEB_SWITCH_INTERVAL_MS", 1.0, minimum=0.1) / 1000)
