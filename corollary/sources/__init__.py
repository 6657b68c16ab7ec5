"""What is known of sources, as data: their kinds and priors (:mod:`.policy`) and the verdicts
on them, folded into totals (:mod:`.outcomes`).

A layer below the stores and the ledger: the stores (:mod:`corollary.storage`) keep outcomes and
a ledger's policy, and the ledger (:mod:`corollary.trust.ledger`) reads them through a store, so
both import this package and neither imports the other's (``tests/architecture/test_layers.py``).
The old paths, ``corollary.trust.policy`` and ``corollary.trust.outcomes``, name the same
objects.
"""
