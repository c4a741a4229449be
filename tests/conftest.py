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

# Each test process advertises and browses its tables under a DNS-SD service type of its own
# (lanswitch/discovery/_records.py), passed on to every lanswitch process it starts: the suite
# runs in several processes at once (pytest-xdist), all on one loopback, and a table one test
# advertised must not appear in another's list, nor take its name. Set before lanswitch's
# discovery is imported (conftest is imported before any test module).
os.environ["LANSWITCH_SERVICE_TYPE"] = f"_lsw-{os.getpid()}._tcp.local."

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


def _played_here() -> tuple[dict[str, dict[str, int]], list[str]]:
    """This process's tally of the property tests' hand endings, and the hands the safety limit
    stopped (as their reproducible ``Case`` lines): empty if those tests did not run here."""
    mod = next(
        (
            m
            for name, m in list(sys.modules.items())
            if name.startswith("tests.") and name.endswith("test_properties")
        ),
        None,
    )
    endings = getattr(mod, "ENDINGS", None) or {}
    cases = getattr(mod, "LIMIT_CASES", None) or {}
    tally = {name: dict(counter) for name, counter in endings.items() if counter}
    return tally, [str(case) for found in cases.values() for case in found]


#: What the workers played, gathered by the controller when the suite runs side by side
#: (``make test`` runs it with pytest-xdist: the tests run in worker processes, and only what a
#: worker hands back in ``workeroutput`` reaches the process that prints the summary).
_FROM_WORKERS: tuple[dict[str, dict[str, int]], list[str]] = ({}, [])


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = getattr(session.config, "workeroutput", None)
    if out is not None:  # a worker: hand the tally to the controller
        out["endings"], out["limit_cases"] = _played_here()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """(pytest-xdist's hook, in the controller: a worker finished.)"""
    out = getattr(node, "workeroutput", {})
    tally, cases = _FROM_WORKERS
    for name, counts in out.get("endings", {}).items():
        mine = tally.setdefault(name, {})
        for kind, n in counts.items():
            mine[kind] = mine.get(kind, 0) + n
    cases += out.get("limit_cases", [])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print how the hands played by the property tests ended, per rule set."""
    tally, cases = _played_here()
    if not tally:
        tally, cases = _FROM_WORKERS
    if not tally:
        return
    terminalreporter.section("how the simulated hands ended")
    kinds = ("finished", "one_left", "blocked", "limit")
    terminalreporter.write_line(f"{'rule set':24}" + "".join(f"{k:>10}" for k in kinds))
    for name, counts in sorted(tally.items()):
        row = "".join(f"{counts.get(k, 0):>10}" for k in kinds)
        terminalreporter.write_line(f"{name:24}{row}")
    for case in cases:
        terminalreporter.write_line(f"stopped by the safety limit: {case}")
