"""Packaged ruleset data: one ``<version>.json`` file per ruleset version (see ``rules.py``)."""
