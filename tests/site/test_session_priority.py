"""veyltak_site.celery.lower_session_priority: the debrief worker's session (autogroup) nice,
against a stand-in for /proc/self/autogroup (the real one: tests/site/test_broker.py)."""

from __future__ import annotations

from veyltak_site.celery import lower_session_priority


def test_raises_the_session_nice_and_never_lowers_it(tmp_path):
    autogroup = tmp_path / "autogroup"
    autogroup.write_text("/autogroup-85 nice 0\n")
    assert lower_session_priority(10, str(autogroup)) is True
    assert autogroup.read_text() == "10"
    autogroup.write_text("/autogroup-85 nice 15\n")
    assert lower_session_priority(10, str(autogroup)) is True
    assert autogroup.read_text() == "/autogroup-85 nice 15\n"  # left at 15, not raised to 10


def test_nothing_to_do_without_an_autogroup_or_a_nice(tmp_path):
    assert lower_session_priority(10, str(tmp_path / "missing")) is False
    autogroup = tmp_path / "autogroup"
    autogroup.write_text("/autogroup-85 nice 0\n")
    assert lower_session_priority(0, str(autogroup)) is False
    assert autogroup.read_text() == "/autogroup-85 nice 0\n"
