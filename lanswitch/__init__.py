"""lanswitch: the card game Switch and its variants, played between laptops on one network.

The package is a pure core (``cards → rules → game``, later ``fairness`` and ``protocol``)
under thin shells (``cli`` and, later, the network and terminal clients). The core never
touches I/O, clocks or randomness: those come in as inputs.
"""

from ._native import install as _install

__version__ = "0.1.0"
#: Which rules engine runs: "compiled" (mypyc, built by make) or "pure" (the source).
ENGINE = _install()
__all__ = ["ENGINE", "__version__"]
