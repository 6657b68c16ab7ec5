"""Issue 36, item 2: ``BeliefBase`` is one class, not mixins over shared private state; its
collaborators are one object (``kb.parts``) whose public attributes the facade's modules use,
and no module of ``corollary/facade`` or ``corollary/changes`` reads another object's
underscore attributes (``kb._engine``, ``base._lookup``, ``entry._blobs``...): that part is
``test_private_reach.py``'s, which checks every module of the package.

Before: ``BeliefBase`` had ten mixins, each re-declaring the base's state as ``Any``; the facade
read other objects' private attributes about 95 times (journaled.py 39, world.py 13, undo.py
11, saving.py 10, remembering.py 7, base_operations.py 7, erasing.py 4, operations.py 3)."""

from __future__ import annotations

from corollary import BeliefBase
from corollary.facade.parts import Parts


def test_the_base_is_one_class() -> None:
    assert BeliefBase.__mro__ == (BeliefBase, object)


def test_the_base_s_collaborators_are_one_object() -> None:
    kb = BeliefBase()
    assert isinstance(kb.parts, Parts)
    assert not [name for name in vars(kb) if name.startswith("_")]
