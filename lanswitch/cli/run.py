"""``main``: parse the command line, settle what the parser cannot check alone (a preset's
spelling, ``verify``'s files or ``--hand``, ``--resume`` with settings of its own), and run
the command (``commands.COMMANDS``) with streams that escape what a terminal would act on.

Exit codes: 0 success, 1 a failure the command reports (``verify``: a hand that is not fair;
any :class:`~lanswitch.errors.LanswitchError` no command caught, said as its one sentence),
2 bad usage or bad input (unknown preset, bad rules file, bad option value, a file that is
unreadable or not a transcript: an :class:`~lanswitch.errors.InvalidInput`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import InvalidInput, LanswitchError
from .args import _TABLE_SETTINGS, _preset_spelling
from .commands import COMMANDS
from .common import _Quit, _UsageError
from .parser import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    top = build_parser()
    args, unknown = top.parse_known_args(argv)
    parser: argparse.ArgumentParser = getattr(args, "command_parser", None) or top
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "rules", None):
        args.rules = _preset_spelling(args.rules)
    if args.command == "rules" and args.name:
        args.name = _preset_spelling(args.name)
    if args.command == "verify" and bool(args.files) == (args.hand is not None):
        parser.error(
            "verify: give transcript FILEs, or --hand ID (see lanswitch history), not both"
            if args.files
            else "verify: give transcript FILEs to check, or --hand ID (see lanswitch history)"
        )
    if getattr(args, "resume", False):
        # A resumed table keeps the settings it was started with (they are in its journal).
        defaults = vars(top.parse_args([args.command]))
        settings = _TABLE_SETTINGS + (("name",) if args.command == "play" else ())
        given = [k for k in settings if getattr(args, k, None) != defaults.get(k)]
        if given:
            names = ", ".join("--" + k.replace("_", "-") for k in given)
            parser.error(f"{args.command} --resume keeps the table's own settings; drop {names}")
    from ..textsafe import safe_stream

    # Every string a command prints may have come from the network, a file or the history:
    # both streams escape what a terminal would act on (lanswitch/textsafe.py).
    out, err = safe_stream(sys.stdout), safe_stream(sys.stderr)
    try:
        command = COMMANDS.get(args.command)
        if command is None:  # no command given: what there is
            parser.print_help(out)
            return 0
        return command(args, out, err)
    except _UsageError as e:
        err.write(f"lanswitch: error: {e}\n")
        return 2
    except _Quit:
        return 0
    except InvalidInput as e:  # a rules file, a card, a saved hand: said in one line
        err.write(f"lanswitch: error: {e}\n")
        return 2
    except LanswitchError as e:  # anything else lanswitch refused on purpose: its sentence
        err.write(f"lanswitch: {e}\n")
        return 1
    except BrokenPipeError:
        # `lanswitch rules switch | head` closes the pipe early: not an error.
        sys.stderr.close()
        return 0
