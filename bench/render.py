"""Rendering benchmark: the compiled renderer (game/presenters/render.py ``present``) against
DRF's own ``Serializer(data).data``, on the same declarations and the same data.

    python bench/render.py [--heists N] [--repeat R] [--seed SEED]

Plays ``--heists`` heists (default 8; rivals, levels and encounters in turn) through the heist
services on a throwaway SQLite database in a temporary folder (rival turns inline), and keeps a
snapshot after every night: the heist views of a heist just started, in play and over, the
seal's answer of each night and each finished heist's replay. Each answer is rendered both ways
``--repeat`` times (default 30), interleaved, after a warm-up; both renderings are checked
equal (as JSON). Builders run once per answer, outside the clocks: only the rendering differs.

Prints, per kind of answer, the count, the median and p95 of one rendering in ms for each way,
and the median and p95 of what DRF costs more per answer; then over every answer
``drf_extra_ms_p50`` and ``drf_extra_ms_p95``, and last the verdict read from the median
(robust to a busy machine, as the p95 is not): render.py stays while DRF costs more than 1 ms
more per answer, and goes when DRF does the same within 1 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# The project's root ahead of bench/, whose shop.py would otherwise stand in for the shop app.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from players import percentile, random_plan  # bench/players.py

RIVALS = ("furnace", "quiet-hands", "the-reader", "split-circuit")
LEVELS = ("rookie", "hustler")
ENCOUNTERS = (None, "overtime", "tower-blackout", "hot-start")
# DRF may cost this much more per answer (seconds) before the compiled renderer is worth keeping.
LIMIT = 0.001


def setup_django(var: Path) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "veyltak_site.settings",
            "VEYLTAK_VAR_DIR": str(var),
            "DATABASE_URL": f"sqlite:///{var / 'db.sqlite3'}",
            "REDIS_URL": "",
            "CELERY_TASK_ALWAYS_EAGER": "true",
            "CELERY_BROKER_URL": "memory://",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("load_catalogue", verbosity=0)


def play(count: int, seed: int) -> dict[str, list]:
    """The answers to render, by kind: (declaration, data) pairs."""
    from game.engine import get_ruleset
    from game.owners import Owner
    from game.presenters import heists as present_heists
    from game.presenters import replay as present_replay
    from game.selectors.heists import heist_load
    from game.services.heists import heist_start, plan_seal

    rng = random.Random(seed)
    costs = {slug: crew.cost for slug, crew in get_ruleset().crew.items()}
    answers: dict[str, list] = {"heist view": [], "seal answer": [], "replay": []}
    for n in range(count):
        owner = Owner(user_id=None, guest_id=f"bench-render-{n}")
        snapshot = heist_start(
            owner=owner,
            rival=RIVALS[n % len(RIVALS)],
            difficulty=LEVELS[n % len(LEVELS)],
            encounter=ENCOUNTERS[n % len(ENCOUNTERS)],
        )
        heist_id = snapshot.heist.pk
        while True:
            snapshot = heist_load(heist_id=heist_id, owner=owner)
            data = present_heists._view_data(snapshot)
            answers["heist view"].append((present_heists.HeistViewSerializer, data))
            if data["status"] != "active":
                break
            body = random_plan(present_heists.heist_view(snapshot), costs, rng)
            night, snapshot = plan_seal(heist_id=heist_id, owner=owner, **body)
            seal = {
                "result": present_heists._night_data(night),
                "heist": present_heists._view_data(snapshot),
            }
            answers["seal answer"].append((present_heists.SealOutputSerializer, seal))
        record = present_replay.replay_record(snapshot.heist, snapshot.nights)
        answers["replay"].append((present_replay.ReplaySerializer, record))
    return answers


def measure(answers: dict[str, list], repeat: int) -> dict[str, dict[str, list[float]]]:
    from game.presenters.render import present

    perf = time.perf_counter
    out: dict[str, dict[str, list[float]]] = {}
    for kind, pairs in answers.items():
        for cls, data in pairs[:3]:  # warm-up: the compiled renderer compiles once per process
            present(cls, data)
            cls(data).data  # noqa: B018
        fast, drf, extra = [], [], []
        for cls, data in pairs:
            if json.dumps(present(cls, data)) != json.dumps(cls(data).data):
                raise SystemExit(f"{kind}: the two renderings differ")
            mine, theirs = [], []
            for _ in range(repeat):
                t0 = perf()
                present(cls, data)
                t1 = perf()
                cls(data).data  # noqa: B018
                t2 = perf()
                mine.append(t1 - t0)
                theirs.append(t2 - t1)
            fast += mine
            drf += theirs
            extra.append(statistics.median(theirs) - statistics.median(mine))
        out[kind] = {"compiled": fast, "drf": drf, "extra": extra}
    return out


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heists", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="veyltak-render-") as folder:
        setup_django(Path(folder))
        answers = play(args.heists, args.seed)
        figures = measure(answers, args.repeat)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(
        f"{'answer':<12} {'count':>5}  {'compiled p50':>12} {'p95':>7}  {'DRF p50':>8} "
        f"{'p95':>7}  {'DRF extra p50':>13} {'p95':>7}   (ms per answer)"
    )
    every_extra: list[float] = []
    for kind, f in figures.items():
        every_extra += f["extra"]
        print(
            f"{kind:<12} {len(f['extra']):>5}  {ms(statistics.median(f['compiled'])):>12} "
            f"{ms(percentile(f['compiled'], 95)):>7}  {ms(statistics.median(f['drf'])):>8} "
            f"{ms(percentile(f['drf'], 95)):>7}  {ms(statistics.median(f['extra'])):>13} "
            f"{ms(percentile(f['extra'], 95)):>7}"
        )
    print(f"drf_extra_ms_p50: {ms(statistics.median(every_extra))}")
    print(f"drf_extra_ms_p95: {ms(percentile(every_extra, 95))}")
    extra = statistics.median(every_extra)
    verdict = "keep" if extra > LIMIT else "drop"
    print(f"verdict: {verdict} game/presenters/render.py (DRF {ms(extra)} ms more per answer)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
