"""Run a snippet in a fresh Python process with Django set up from a given environment.

Settings are read once per process, so checking how start-up reacts to the environment needs a
process of its own.
"""

import os
import subprocess
import sys

from django.conf import settings


def run_django(
    code: str = "", *, check: bool = False, drop=(), **env
) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in drop}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + code],
        env=full,
        capture_output=True,
        text=True,
        check=check,
        cwd=settings.BASE_DIR,
        timeout=120,
    )
