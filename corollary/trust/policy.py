"""The trust policy, from its home below the stores: :mod:`corollary.sources.policy` (this path
names the same objects)."""

from __future__ import annotations

from ..sources.policy import (
    DEFAULT_PRIORS,
    DEFAULT_TOOL_TRUST,
    STEP_KINDS,
    TrustPolicy,
    policy_fields,
    split_source,
)

__all__ = ["DEFAULT_PRIORS", "DEFAULT_TOOL_TRUST", "STEP_KINDS", "TrustPolicy", "policy_fields",
           "split_source"]
