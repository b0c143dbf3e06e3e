"""The embedded broker candidates, side by side, through kombu alone (no Celery, no site).

For each candidate: the CPU an idle consumer burns polling (it polls every 0.1 s, as the site's
worker does), the time from publish to delivery for single messages, and ``--producers``
processes publishing ``--messages`` each while two consumer processes drain the queue: messages
per second end to end, and how many were lost, duplicated or unreadable.

    .venv-dev/bin/python bench/broker.py
    .venv-dev/bin/python bench/broker.py --candidates veyltak,kombu-file

Candidates: ``veyltak`` (veyltak_site/broker.py, what `make run` uses), ``kombu-file`` (kombu's
own file transport, what it used before) and ``sqlalchemy`` (kombu's SQLAlchemy transport on
an SQLite file of its own; only if SQLAlchemy is installed, which the project does not pin).
Last line ``veyltak_lost_or_broken: N``.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from players import ms, percentile  # bench/players.py

POLL = 0.1


def connection(candidate: str, folder: str):
    from kombu import Connection

    if candidate == "sqlalchemy":
        from kombu.transport import sqlalchemy

        # Its transport options go to create_engine(), so the poll is set on the class.
        sqlalchemy.Transport.polling_interval = POLL
        return Connection(f"sqla+sqlite:///{folder}/broker.sqlite3")
    for name in ("queue", "control"):
        os.makedirs(os.path.join(folder, name), exist_ok=True)
    transport = {
        "veyltak": "veyltak_site.broker:Transport",
        "kombu-file": "kombu.transport.filesystem:Transport",
    }[candidate]
    return Connection(
        "filesystem://",
        transport=transport,
        transport_options={
            "data_folder_in": os.path.join(folder, "queue"),
            "data_folder_out": os.path.join(folder, "queue"),
            "control_folder": os.path.join(folder, "control"),
            "polling_interval": POLL,
        },
    )


def consumer(candidate, folder, out, stop_after_idle, errors, ready=None, first_wait=60.0):
    """Consume until nothing came for ``stop_after_idle`` s (``first_wait`` before the first)."""
    got = []
    cpu0 = 0.0
    try:
        with connection(candidate, folder) as conn:
            queue = conn.SimpleQueue("bench")
            with contextlib.suppress(queue.Empty):
                queue.get(timeout=0.01)  # declares the queue; counted from here on
            cpu0 = time.process_time()
            if ready is not None:
                ready.set()
            idle_since = time.monotonic()
            while time.monotonic() - idle_since < (stop_after_idle if got else first_wait):
                try:
                    message = queue.get(timeout=0.5)
                except queue.Empty:
                    continue
                message.ack()
                payload = message.payload
                got.append((payload["p"], payload["n"], time.time(), payload["sent"]))
                idle_since = time.monotonic()
    except Exception as exc:  # a consumer that dies is a result, not a crash of the bench
        errors.put(f"consumer died: {type(exc).__name__}: {exc}")
    out.put((got, time.process_time() - cpu0))


def producer(candidate, folder, index, count, gap):
    with connection(candidate, folder) as conn:
        queue = conn.SimpleQueue("bench")
        for n in range(count):
            queue.put({"p": index, "n": n, "sent": time.time()})
            if gap:  # jittered, so that arrivals do not keep one phase against the poll
                time.sleep(gap * random.uniform(0.5, 1.5))


def idle_cpu(candidate: str, folder: str, seconds: float) -> float:
    """CPU ms per second of a consumer with nothing to consume."""
    ctx = multiprocessing.get_context("spawn")
    out, errors = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=consumer, args=(candidate, folder, out, seconds, errors))
    p.start()
    _, cpu = out.get(timeout=seconds + 60)
    p.join()
    return cpu * 1000 / seconds


def run(candidate: str, args) -> dict:
    folder = tempfile.mkdtemp(prefix=f"broker-{candidate}-")
    ctx = multiprocessing.get_context("spawn")
    try:
        connection(candidate, folder).release()
        result = {"idle_cpu": idle_cpu(candidate, folder, args.idle_seconds)}
        # Latency: one message at a time, 0.3 s apart.
        out, errors, ready = ctx.Queue(), ctx.Queue(), ctx.Event()
        c = ctx.Process(target=consumer, args=(candidate, folder, out, 3.0, errors, ready))
        c.start()
        ready.wait(120)
        producer(candidate, folder, 0, args.latency_messages, 0.3)
        got, _ = out.get(timeout=300)
        c.join()
        result["latency"] = [at - sent for _, _, at, sent in got]
        # Throughput: concurrent producers, two consumers.
        out, errors = ctx.Queue(), ctx.Queue()
        readies = [ctx.Event() for _ in range(2)]
        consumers = [
            ctx.Process(target=consumer, args=(candidate, folder, out, 5.0, errors, r))
            for r in readies
        ]
        makers = [
            ctx.Process(target=producer, args=(candidate, folder, i + 1, args.messages, 0))
            for i in range(args.producers)
        ]
        failed_producers = 0
        for p in consumers:
            p.start()
        for r in readies:
            r.wait(120)
        for p in makers:
            p.start()
        for p in makers:
            p.join()
            failed_producers += p.exitcode != 0
        got = []
        for _ in consumers:
            part, _ = out.get(timeout=600)
            got += part
        for p in consumers:
            p.join()
        first = min((sent for _, _, _, sent in got), default=0.0)
        last = max((at for _, _, at, _ in got), default=first)
        keys = [(p, n) for p, n, _, _ in got]
        expected = args.producers * args.messages
        result["rate"] = len(set(keys)) / max(last - first, 1e-9)
        result["lost"] = expected - len(set(keys))
        result["duplicates"] = len(keys) - len(set(keys))
        broken = Path(folder, "broken")
        result["set_aside"] = len(list(broken.iterdir())) if broken.is_dir() else 0
        result["errors"] = [f"{failed_producers} producers failed"] if failed_producers else []
        while not errors.empty():
            result["errors"].append(errors.get())
        return result
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", default="veyltak,kombu-file,sqlalchemy")
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--messages", type=int, default=500, help="per producer")
    parser.add_argument("--latency-messages", type=int, default=40)
    parser.add_argument("--idle-seconds", type=float, default=20.0)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "veyltak_site.settings")
    results = {}
    for candidate in args.candidates.split(","):
        if candidate == "sqlalchemy":
            try:
                import sqlalchemy  # noqa: F401
            except ImportError:
                print("sqlalchemy: skipped (SQLAlchemy is not installed)")
                continue
        r = results[candidate] = run(candidate, args)
        lat = r["latency"]
        print(
            f"{candidate}: idle consumer {r['idle_cpu']:.1f} ms CPU/s; publish->delivery "
            f"p50 {ms(percentile(lat, 50))} ms p95 {ms(percentile(lat, 95))} ms; "
            f"{args.producers} producers x {args.messages}, 2 consumers: {r['rate']:.0f} msg/s, "
            f"lost {r['lost']}, duplicated {r['duplicates']}, set aside {r['set_aside']}"
            + (f"; {len(r['errors'])} consumers died: {r['errors'][0]}" if r["errors"] else ""),
            flush=True,
        )
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} (other work shares it)")
    v = results.get("veyltak")
    print(f"veyltak_lost_or_broken: {v['lost'] + v['duplicates'] + v['set_aside'] if v else -1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
