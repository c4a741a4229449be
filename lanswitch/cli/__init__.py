"""The ``lanswitch`` command line (a shell: it does the I/O the core never does).

``lanswitch.cli:main`` is the console entry point (and ``python -m lanswitch``). The package:

- ``run.py`` — ``main``: parse, settle what the parser cannot check alone, run the command,
  and turn what went wrong into one line and an exit code (0 done, 1 reported, 2 usage).
- ``parser.py`` — the argument parser, one function per command, and the option value types.
- ``args.py`` — the arguments as plain settings (``lanswitch/settings.py``), checked before
  anything starts; host's old ``--name``, the terminal check, the offer to resume a table.
- ``commands.py`` — what each command does (``COMMANDS``: name → function): rules, simulate,
  stats, replay, tables, host, join, play, paths.
- ``verify.py`` — ``lanswitch verify``: each file's verdict, the summary, aborted and missing
  hands.
- ``history.py`` — ``lanswitch history``: the list, one hand in full, ``--save``; the
  transcript the history keeps for ``--hand ID``.
- ``common.py`` — the parser's limits and names, ``data_dir``, and the two early stops
  (``_UsageError``: exit 2; ``_Quit``: exit 0).

Every module imports only the standard library and ``lanswitch/settings.py`` at the top; the
rest is imported by the command that needs it, so ``lanswitch play`` draws its first frame
before the rules engine, the simulator or the transcript checker is loaded.
"""

from .args import default_name
from .common import BOTS, DATA_DIR_ENV, MAX_PLAYERS, MIN_PLAYERS, PRESET_NAMES, data_dir
from .parser import build_parser
from .run import main

__all__ = [
    "BOTS",
    "DATA_DIR_ENV",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PRESET_NAMES",
    "build_parser",
    "data_dir",
    "default_name",
    "main",
]
