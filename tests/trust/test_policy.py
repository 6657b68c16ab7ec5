"""TrustPolicy: what it refuses (its priors in a base are tested through the base)."""

from __future__ import annotations

import pytest

from corollary import CorollaryError, TrustPolicy


@pytest.mark.parametrize("options", [{"priors": 5}, {"tool_trust": 5}, {"source_priors": 5},
                                     {"priors": ["sensor"]}])
def test_policy_rejects_non_mappings_with_a_typed_error(options):
    with pytest.raises(CorollaryError):
        TrustPolicy(**options)
