"""Helpers shared by the tests: the oracle, snapshot cases, ledger targets, old store files and
child-process entry points.

``tests/conftest.py`` puts ``tests/`` on ``sys.path``, so these import as ``support.<module>``
in the test process and in every child it spawns (multiprocessing's spawn hands the parent's
``sys.path`` to the child, which then imports a worker by its module name).
"""
