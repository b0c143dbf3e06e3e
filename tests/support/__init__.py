"""What several test files share: clients, players and heists played through the API, the
ledger read from its tables, a live Celery worker, the local stack, the browser's steps.

Test modules and conftest files import shared code from here only, never from one another, and
nothing here imports a test module (`make lint` runs scripts/check_test_imports.py). Each module
imports what it needs itself: tests.support.engine and tests.support.rivals need no Django.
"""
