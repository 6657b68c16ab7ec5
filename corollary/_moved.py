"""Old module paths of the flat layout, still importable for one release with a warning.

The modules were regrouped into layer packages (README "Architecture"): ``corollary.ledger`` is
now ``corollary.trust.ledger``, and so on. Importing an old path gives the new module itself (the
same objects, so ``isinstance`` and ``except`` keep working) and warns with a
:class:`DeprecationWarning`; the old paths go in the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

MOVED: dict[str, str] = {
    'corollary._collector': 'corollary.foundations._collector',
    'corollary._deprecated': 'corollary.foundations._deprecated',
    'corollary._fields': 'corollary.foundations._fields',
    'corollary._format': 'corollary.foundations._format',
    'corollary._io': 'corollary.foundations._io',
    'corollary._validate': 'corollary.foundations._validate',
    'corollary.assertions': 'corollary.facade.assertions',
    'corollary.base': 'corollary.facade.base',
    'corollary.bindings': 'corollary.promises.bindings',
    'corollary.blame': 'corollary.facade.blame',
    'corollary.calibration': 'corollary.promises.calibration',
    'corollary.calibrators': 'corollary.promises.calibrators',
    'corollary.calls': 'corollary.reasons.calls',
    'corollary.citation': 'corollary.evidence.citation',
    'corollary.claims': 'corollary.reasons.claims',
    'corollary.clock': 'corollary.foundations.clock',
    'corollary.confidence': 'corollary.evidence.confidence',
    'corollary.conflicts': 'corollary.tms.conflicts',
    'corollary.errors': 'corollary.foundations.errors',
    'corollary.facade_calls': 'corollary.facade.calling',
    'corollary.facade_promises': 'corollary.facade.promising',
    'corollary.facade_queries': 'corollary.facade.queries',
    'corollary.facade.recall_index': 'corollary.retrieval.lexical',
    'corollary.facade.recall_vectors': 'corollary.retrieval.vectors',
    'corollary.facade_snapshots': 'corollary.facade.saving',
    'corollary.formula': 'corollary.evidence.formula',
    'corollary.guarantee': 'corollary.promises.guarantee',
    'corollary.guarantee_options': 'corollary.promises.options',
    'corollary.ledger': 'corollary.trust.ledger',
    'corollary.lookup': 'corollary.facade.lookup',
    'corollary.nogoods': 'corollary.reasons.nogoods',
    'corollary.outcomes': 'corollary.trust.outcomes',
    'corollary.policy': 'corollary.trust.policy',
    'corollary.proof': 'corollary.tms.proof',
    'corollary.recall': 'corollary.facade.recall',
    'corollary.recall_index': 'corollary.retrieval.lexical',
    'corollary.recall_vectors': 'corollary.retrieval.vectors',
    'corollary.resolving': 'corollary.facade.resolving',
    'corollary.rule_engine': 'corollary.reasons.rule_engine',
    'corollary.rules': 'corollary.reasons.rules',
    'corollary.sensitivity': 'corollary.facade.sensitivity',
    'corollary.stores': 'corollary.trust.stores',
    'corollary.stores.backends': 'corollary.trust.stores.backends',
    'corollary.stores.base': 'corollary.trust.stores.base',
    'corollary.stores.jsonfile': 'corollary.trust.stores.jsonfile',
    'corollary.stores.memory': 'corollary.trust.stores.memory',
    'corollary.stores.postgres': 'corollary.trust.stores.postgres',
    'corollary.stores.sqlite': 'corollary.trust.stores.sqlite',
    'corollary.stores.targets': 'corollary.trust.stores.targets',
    'corollary.tools': 'corollary.reasons.tools',
    'corollary.values': 'corollary.foundations.values',
}


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and hands back the module at its new one."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        new = importlib.import_module(MOVED[fullname])
        # loader_state keeps the module's own spec: the import system sets the old-path spec on
        # the module it gets back, and exec_module puts the own one back
        return importlib.machinery.ModuleSpec(
            fullname, self, is_package=hasattr(new, "__path__"), loader_state=new.__spec__)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} moved to {MOVED[spec.name]}; the old path goes in the next "
                      "release (names exported by corollary itself have not moved)",
                      DeprecationWarning, stacklevel=2)  # the import machinery's frames are skipped
        return sys.modules[MOVED[spec.name]]

    def exec_module(self, module: ModuleType) -> None:
        """The module at the new path has run already: give it back its own spec.

        Left with the old path's spec, its ``__spec__.parent`` would differ from its
        ``__package__`` (every relative import inside a function then raises ``ImportWarning``)
        and ``importlib.reload`` would run this loader, which runs nothing.
        """
        found = module.__spec__
        assert found is not None  # set by the import system before it calls exec_module
        module.__spec__ = found.loader_state


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())
