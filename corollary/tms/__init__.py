"""The truth-maintenance system: records, kinds of reasons, and the engine that labels them.

Nothing here knows of agents, storage, rules, ledgers or the CLI: the facade
(:class:`corollary.BeliefBase`) joins the engine to the rule engine and to trust.
"""

from .engine import Engine
from .kinds import FORMULA, KINDS, MODEL, RULE, StepKind, kind_named, register
from .records import (
           ANY,
           IN,
           OUT,
           PREMISES,
           Belief,
           Item,
           Justification,
           Nogood,
           Premise,
           PremiseRecord,
           item_text,
           make_items,
           premise_record,
)

__all__ = ["ANY", "FORMULA", "IN", "KINDS", "MODEL", "OUT", "PREMISES", "RULE", "Belief", "Engine",
           "Item", "Justification", "Nogood", "Premise", "PremiseRecord", "StepKind", "item_text",
           "kind_named", "make_items", "premise_record", "register"]
