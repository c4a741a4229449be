"""Shared test configuration: hypothesis profiles and the end-of-run tally of hand endings.

Profiles (pick one with ``HYPOTHESIS_PROFILE=name``):

``default``  hypothesis' usual 100 examples per property; the game-driven properties of
             ``test_properties.py`` play a tenth as many whole hands (10 per rule set and
             property), which keeps that suite well under a minute on two cores.
``ci``       six times as many, for a nightly or pre-release run (a few minutes).
``thorough`` fifty times as many, for hunting bugs (run it on one test: ``-k``).
``repro``    ten examples (one hand), for chasing one reported failure with
             ``@reproduce_failure`` or a pinned ``Case``.

No deadline anywhere: a hand that runs into the safety limit takes far longer than a short
one, and that is not a failure.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, Phase, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "default",
    max_examples=100,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.register_profile(
    "ci",
    max_examples=600,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=5000,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    print_blob=True,
)
settings.register_profile(
    "repro",
    max_examples=10,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print how the hands played by the property tests ended, per rule set."""
    mod = sys.modules.get("tests.test_properties")
    endings = getattr(mod, "ENDINGS", None)
    if not endings or not any(endings.values()):
        return
    terminalreporter.section("how the simulated hands ended")
    kinds = ("finished", "one_left", "blocked", "limit")
    terminalreporter.write_line(f"{'rule set':24}" + "".join(f"{k:>10}" for k in kinds))
    for name, tally in endings.items():
        if tally:
            row = "".join(f"{tally.get(k, 0):>10}" for k in kinds)
            terminalreporter.write_line(f"{name:24}{row}")
    cases = getattr(mod, "LIMIT_CASES", {})
    for found in cases.values():
        for case in found:
            terminalreporter.write_line(f"stopped by the safety limit: {case}")
