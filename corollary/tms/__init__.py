"""The truth-maintenance system: records, kinds of reasons, and the engine that labels them.

Nothing here knows of agents, storage, rules, ledgers or the CLI: the facade
(:class:`corollary.BeliefBase`) joins the engine to the rule engine and to trust.
"""

from .engine import Engine
from .kinds import FORMULA, KINDS, MODEL, RULE, StepKind, kind_named, register
from .records import IN, OUT, PREMISES, Belief, Justification, Premise

__all__ = ["FORMULA", "IN", "KINDS", "MODEL", "OUT", "PREMISES", "RULE", "Belief", "Engine",
           "Justification", "Premise", "StepKind", "kind_named", "register"]
