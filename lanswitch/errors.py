"""The one root of every exception lanswitch raises on purpose, and where each sits under it.

A caller that wants "anything lanswitch refused, said in words" catches :class:`LanswitchError`
(the command line does, so that no such error ever reaches a person as a traceback); one that
wants to know *whose* fault it was catches :class:`LocalError` (this side: what the person typed,
a file on this machine, a call made wrongly) or :class:`RemoteError` (another party: a peer that
broke the protocol, a host that cheated, a table that turned us away). Where one area has faults
of both kinds (the wire protocol, the fair deal), its base sits under the root and each side
under both, as h11's ``ProtocolError`` splits into ``LocalProtocolError`` and
``RemoteProtocolError``. :class:`InvalidInput` is also a :class:`ValueError`, as the classes
under it were before they had a root, so no caller's ``except ValueError`` changed meaning.

The tree (``tests/test_errors.py`` checks that it is the classes' own, both ways: every class
drawn here has exactly this parent among the drawn ones, and every exception class of the
package is drawn)::

    LanswitchError
        LocalError
            InvalidInput
                CardError
                RulesError
                IllegalMove
                SetupError
                TranscriptError
                RepeatedKey
                BlindFileError
                ReplayError
                TableChoiceError
                BadMove
            StateError
                HistoryError
                IdentityError
                PinStoreError
                JournalError
                    JournalBusy
                    JournalFull
                ResumeError
            DeterminizeError
            Stopped
                Declined
                PasswordNeeded
            LocalProtocolError
            UsageError
            RoundFlowError
        RemoteError
            RemoteProtocolError
            Blame
            Cheat
            JoinError
            Refused
            PinChanged
            FingerprintMismatch
            Withheld
        ProtocolError
            LocalProtocolError
            RemoteProtocolError
        FairnessError
            UsageError
            RoundFlowError
            Blame
            Cheat
        CommandError

A class drawn twice (under its side and under its area) has those two parents; each line
under a class is a class that names it as a direct base.
Private exceptions a module uses for its own control flow (a ``_Quit`` that unwinds to the
command line, say) hang under the public class that fits and are not drawn.
"""

from __future__ import annotations

__all__ = [
    "InvalidInput",
    "LanswitchError",
    "LocalError",
    "RemoteError",
    "StateError",
    "Stopped",
]


class LanswitchError(Exception):
    """Anything lanswitch raises on purpose; its text is a sentence a person can read."""


class LocalError(LanswitchError):
    """The cause is on this side: what the person gave, this machine's files, a wrong call."""


class RemoteError(LanswitchError):
    """The cause is another party: a peer, the host, a table that refused."""


class InvalidInput(LocalError, ValueError):  # noqa: N818  (what it is, as IllegalMove)
    """A value given to lanswitch (a card, a rules file, a move, a saved hand, a choice) does
    not hold up; the text says which and, where it can, how to put it right."""


class StateError(LocalError):
    """This machine's lanswitch files cannot be used as they are (unreadable, locked, full,
    from a newer version); the text names the file."""


class Stopped(LocalError):  # noqa: N818  (a choice, not a failure)
    """Not a failure: the person chose to stop, or must answer something that cannot be asked
    here. Nothing was lost; the text says what to do next."""
