"""Which table a name means: names compared as people read them (:func:`same_name`), the
tables that share a name (:func:`conflicts`), and :func:`pick_table`, which refuses to guess
between two answers for one name — the fingerprint is the table's identity, the name only
finds it.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from ..errors import InvalidInput
from ..textsafe import escape, fold_name
from ..tls import FingerprintChoice, Pin, fingerprint_words
from ._records import Table


class TableChoiceError(InvalidInput):
    """Which table is meant cannot be told (two fingerprints answer for the name), or the
    fingerprint chosen is not among the answers. The message says how to choose."""


def same_name(a: str, b: str) -> bool:
    """Whether two table names read the same (:func:`lanswitch.textsafe.fold_name`)."""
    return fold_name(a) == fold_name(b)


def _words(table: Table) -> str:
    try:
        return fingerprint_words(bytes.fromhex(table.fingerprint))
    except ValueError:
        return "(no fingerprint)"


def _where(table: Table) -> str:
    return ", ".join(f"{a}:{table.port}" for a in table.addresses) or f"port {table.port}"


def conflicts(tables: Sequence[Table]) -> dict[str, list[Table]]:
    """The names (as people read them) answered with more than one fingerprint, each with
    its answers."""
    by_name: dict[str, list[Table]] = {}
    for t in tables:
        by_name.setdefault(fold_name(t.name), []).append(t)
    return {n: ts for n, ts in by_name.items() if len({t.fingerprint or None for t in ts}) > 1}


def _join_command(table: Table, words: str | None = None) -> str:
    """The command that joins ``table`` and no other answer for its name."""
    name = shlex.quote(escape(table.name))
    return f'lanswitch join {name} --fingerprint "{words or _words(table)}"'


def pick_table(
    tables: Sequence[Table],
    name: str | None,
    *,
    choice: FingerprintChoice | None = None,
    pinned: Pin | None = None,
) -> Table | None:
    """The table ``name`` means among the answers heard (None: every answer is a candidate;
    the caller has checked they share a name): None if no answer has the name, else the one
    answer. TableChoiceError if answers with different fingerprints have it and ``choice``
    does not pick one of them, or ``choice`` matches none of them.

    ``pinned`` is the pin the user keeps for the name: the message then says which answer
    matches it and how to join that one.
    """
    candidates = [t for t in tables if name is None or same_name(t.name, name)]
    if not candidates:
        return None
    shown = escape(name if name is not None else candidates[0].name)
    if choice is not None:
        chosen = [
            t for t in candidates if t.fingerprint and choice.matches(bytes.fromhex(t.fingerprint))
        ]
        if not chosen:
            raise TableChoiceError(
                f'no table called "{shown}" has the fingerprint {choice.text}; '
                + _list_answers(candidates, pinned)
            )
        candidates = chosen
    if len({t.fingerprint or None for t in candidates}) == 1:
        return candidates[0]
    raise TableChoiceError(
        f"{len({t.fingerprint or None for t in candidates})} different tables answer to the "
        f'name "{shown}", so one may be pretending to be another; '
        + _list_answers(candidates, pinned)
    )


def _list_answers(candidates: Sequence[Table], pinned: Pin | None) -> str:
    """The answers, one a line with their fingerprint words, which one matches the pin, and
    how to join one."""
    lines = ["the answers:"]
    matching: Table | None = None
    for t in candidates:
        mark = ""
        if pinned is not None and t.fingerprint == pinned.fingerprint.hex():
            mark = f"  <- the fingerprint you pinned for this name on {pinned.first_seen[:10]}"
            matching = matching or t
        blind = " (dealer-blind)" if t.blind else ""
        blind += " (password)" if t.locked else ""
        lines.append(f'  "{escape(t.name)}" at {_where(t)}: {_words(t)}{blind}{mark}')
    if matching is not None:
        lines.append(f"To join the table you joined before: {_join_command(matching)}")
    else:
        lines.append(
            "Ask the host which words its screen shows, and join that table with: "
            + _join_command(candidates[0], "WORDS")
        )
    return "\n".join(lines)
