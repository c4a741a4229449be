"""lanswitch: the card game Switch and its variants, played between laptops on one network.

A pure core under thin shells, as h11 is a protocol without I/O. The core never touches
sockets, clocks, randomness, terminals or disks: those come in as inputs, and
``tests/test_purity.py`` holds every module here to it unless it is named a shell there.

The core, bottom up:

- ``cards``, ``rules/`` (the rule table; the presets are house-rules files in
  ``rules/presets/``), ``game`` (the engine: one hand as a state machine; compiled by mypyc
  when ``make`` has built it, see ``_native``), ``powers``, ``narrate`` (the engine's events
  in words), ``bots``; ``errors`` (the one root of every exception, its tree drawn there).
- ``fairdeal/``: the fair deal, commit-reveal and dealer-blind (``fairdeal/blind/``), the
  log, transcripts and the verdict a client reaches by itself.
- ``protocol/``: the wire (fields, messages, frames, the connection's state table).
- The host: ``table`` (seats, rules and readiness between hands) and ``host/`` (the table
  with its hand, one driver per deal).
- The client: ``session`` (its mirror of the table), ``seatpart`` (a seat's part in a hand:
  ``commitseat`` and ``blindsession``, one per deal), ``handcheck``, ``settings``,
  ``textsafe``.

The shells: ``server`` (with ``door`` and ``gcpolicy``), ``client``, ``discovery/``
(zeroconf), ``tls``, ``journal`` and ``hosting`` (a host's disk and its ``--resume``),
``history`` and ``stats`` (sqlite), ``tui/`` (prompt_toolkit), ``netcmd``, ``cli/`` (the
command line), ``admission``, ``preflight``, ``datadir``, ``simulate``; ``_native`` and
``_build`` load and build the compiled engine.

docs/architecture.md draws the layers and follows a move through them.
"""

from ._native import install as _install

__version__ = "0.1.0"
#: Which rules engine runs: "compiled" (mypyc, built by make) or "pure" (the source).
ENGINE = _install()
__all__ = ["ENGINE", "__version__"]
