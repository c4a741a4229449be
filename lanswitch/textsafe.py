"""Text that came from elsewhere, made safe to print, and table names compared as people read
them (pure: no I/O).

**Escaping** (:func:`escape`). A string from the network (a table's TXT record, a player's
name, a chat line), from a file (a rules file, a transcript) or from the history may hold
characters a terminal acts on instead of showing: C0 controls and ESC start escape sequences
(``ESC [ 2 J`` clears the screen, ``ESC ] 0 ; … BEL`` sets the window title), C1 controls are
the same in one byte (U+009B is CSI), DEL and a bare CR overwrite what is shown, bidirectional
controls (U+202E RIGHT-TO-LEFT OVERRIDE) make text read backwards, and zero-width characters
make two different names look the same. Every printer of such a string passes it through
:func:`escape`, which shows each of those characters as its escape, ``\\x1b`` or ``\\u202e``,
and leaves every other character as it is. A backslash is *not* doubled: the output is for
people, and escaping is then idempotent (text escaped twice reads the same).

What is escaped: categories Cc (C0, DEL, C1), Cf (format characters: the bidi controls
U+200E/F, U+061C, U+202A–U+202E, U+2066–U+2069, the zero-width U+200B–U+200D, U+2060, U+FEFF,
the soft hyphen, tags), Cs (lone surrogates, which no terminal encoding can write), Zl and Zp
(U+2028/U+2029, which some terminals take as a new line), and a combining mark with nothing
to combine with (at the start, or after whitespace or another escaped character) — it would
otherwise sit on the character printed before the string.

**Names** (:func:`fold_name`). Two table names are the same name when they read the same:
compared after NFKC (compatibility forms: fullwidth ``ＫＩＴＣＨＥＮ`` is ``KITCHEN``),
case folding (``KITCHEN`` is ``Kitchen``), with invisible characters dropped and spaces
folded. Multicast DNS itself compares names without regard to case, so two tables whose names
differ only so answer for one name on the LAN.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any, Literal, TextIO, cast

__all__ = ["escape", "fold_name", "safe_stream", "unsafe"]

#: The Unicode categories that are never printed raw.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def unsafe(ch: str) -> bool:
    """Whether the character ``ch`` is one :func:`escape` never prints as it is (a combining
    mark is unsafe only where it has nothing to combine with, which this cannot see)."""
    return unicodedata.category(ch) in _UNSAFE_CATEGORIES


def _escaped(ch: str, style: Literal["python", "toml"]) -> str:
    o = ord(ch)
    if o < 0x100 and style == "python":
        return f"\\x{o:02x}"
    if o <= 0xFFFF:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def escape(text: str, *, keep: str = "", style: Literal["python", "toml"] = "python") -> str:
    """``text`` with every character a terminal would act on, hide, or use to disguise the
    text shown as its escape (see the module docstring): ``"a\\x1b[2Jb"`` prints as
    ``a\\x1b[2Jb``, ``"\\u202eevil"`` as ``\\u202eevil``.

    ``keep`` names characters to pass as they are (``"\\n"`` for text printed line by line).
    ``style`` ``"python"`` writes ``\\xNN`` below U+0100 and ``\\uNNNN`` / ``\\UNNNNNNNN``
    above; ``"toml"`` writes ``\\uNNNN`` / ``\\UNNNNNNNN`` only, so escaped text inside a TOML
    string still loads back to the same characters.
    """
    out: list[str] = []
    base = False  # whether the last character printed can carry a combining mark
    for ch in text:
        if ch in keep:
            out.append(ch)
            base = not ch.isspace()
            continue
        cat = unicodedata.category(ch)
        if cat in _UNSAFE_CATEGORIES or (cat[0] == "M" and not base):
            out.append(_escaped(ch, style))
            base = False
            continue
        out.append(ch)
        base = cat[0] == "M" or not ch.isspace()
    return "".join(out)


def fold_name(name: str) -> str:
    """``name`` as it is compared: NFKC, case folded, NFKC again (case folding can undo a
    normal form), with format and control characters dropped and runs of whitespace made one
    space, trimmed. ``fold_name("KITCHEN") == fold_name("Kitchen\\u200b ") == "kitchen"``."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    visible = "".join(
        " " if ch.isspace() else ch
        for ch in folded
        if ch.isspace() or unicodedata.category(ch) not in _UNSAFE_CATEGORIES
    )
    return " ".join(visible.split())


class _EscapingStream:
    """A text stream that writes everything through :func:`escape` (see :func:`safe_stream`)."""

    def __init__(self, stream: TextIO, keep: str) -> None:
        self._stream = stream
        self._keep = keep

    def write(self, text: str) -> int:
        return self._stream.write(escape(text, keep=self._keep))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, close, …
        return getattr(self._stream, name)


def safe_stream(stream: TextIO, *, keep: str = "\n") -> TextIO:
    """``stream`` with every write escaped (:func:`escape`, keeping ``keep``): the command
    line's stdout and stderr, so that no string a command prints — a name from the network,
    a rules file's, a transcript's, the history's — reaches the terminal raw, whichever
    printer forgot. Printers that line text up in columns still escape each field first
    (escaping is idempotent), so the widths are those of what is shown."""
    if isinstance(stream, _EscapingStream):
        return stream
    return cast(TextIO, _EscapingStream(stream, keep))
