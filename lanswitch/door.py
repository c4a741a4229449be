"""The server's door: who gets in, and how fast — the limits and their bookkeeping.

The values are :class:`Limits` (why: docs/security.md, Connection limits); the server
(``lanswitch.server``) applies them, with the bookkeeping here: :func:`address_key` (what
an address counts as), :class:`_Guesses` (wrong passwords per address, the back-off) and
:class:`_Said` (log lines an attacker can cause, bounded). The server is the part that knows
peer addresses, so it keeps the door; the host only ever meets a connection with its
``hello``:

1. **Accept**, before TLS: a connection is refused (closed at once, costing nothing) when
   ``pending_per_address`` connections from its address wait for their ``hello`` already,
   or when ``pending`` wait in all — unless another address has at least two more waiting
   than its own: then that address's oldest waiting connection is put out to make room (the
   room is shared evenly among addresses; a lone waiting connection is never put out). TLS
   starts only after this (``StreamWriter.start_tls``), so the TLS state that makes a
   connection expensive — asyncio's 256 KiB read buffer among it — exists only for
   connections inside the limit.
2. **Hello deadline**: TLS handshake and ``hello`` within ``hello_deadline`` seconds of the
   accept, or the connection is closed and its slot freed.
3. **Password guesses**: a ``hello`` without a resume token from an address that recently
   sent a wrong password waits until its back-off has passed (1 s after the first wrong one,
   doubling, at most 60 s); if that is past the hello deadline it is refused at once with
   ``rate_limited``. Every wrong password and every refusal for it is logged — at most
   ``log_burst`` lines a ``log_window``, the rest counted.
4. **Room**: a ``hello`` without a resume token is refused with ``table_full`` when its
   address already has ``per_address`` joined connections, or when the table holds
   ``MAX_CLIENTS`` people (seated players who are away count: their slots are kept). A
   ``hello`` with a token goes to the host, which checks it: a resume finds its slot (unless
   the host's own cap of open connections is reached, its dead old one still counted).
5. Only then does the host hear of the connection (``connect`` and the ``hello``, in one
   step). If the host turns it away without changing anything else (a wrong password, an
   unknown token, another version), the two records are taken back out of the journal: a
   connection that never joined leaves no trace there (``lanswitch.host._journal``).
"""

from __future__ import annotations

import ipaddress
import logging
import math
from dataclasses import dataclass

__all__ = ["Limits", "address_key"]

log = logging.getLogger("lanswitch.server")  # the server says these: they go to its log


@dataclass(frozen=True, slots=True)
class Limits:
    """Who the server lets in, and how fast (the module docstring; docs/security.md)."""

    pending: int = 32
    """Connections between TCP accept and ``hello``, from every address together. Each holds
    TLS state (asyncio's 256 KiB read buffer, OpenSSL's buffers) and at most a partial frame;
    beyond this limit the next is closed at once, before TLS, so it costs nothing — unless it
    comes from an address with at least two fewer waiting than another (``_make_room``)."""
    pending_per_address: int = 4
    """Of those, from one address (an IPv6 address: its /64)."""
    per_address: int = 8
    """Joined connections from one address: a ``hello`` without a resume token beyond it gets
    ``table_full``."""
    hello_deadline: float = 5.0
    """Seconds from TCP accept to ``hello``, the TLS handshake included."""
    guess_wait: float = 1.0
    """After a wrong password, the next ``hello`` without a token from that address waits
    this long; each further wrong one doubles it, up to ``guess_wait_max``."""
    guess_wait_max: float = 60.0
    guess_forget: float = 600.0
    """An address's wrong passwords are forgotten this long after its last (and at once after
    a right one)."""
    guess_addresses: int = 4096
    """Addresses whose wrong passwords are kept (beyond: the longest quiet is forgotten)."""
    log_burst: int = 10
    log_window: float = 60.0
    """Log lines about refused guesses and connections: at most ``log_burst`` a
    ``log_window``; the others are counted, and the count said when lines are let through
    again."""


def address_key(peer: object) -> str:
    """What the limits count a peer as: its IPv4 address, or its IPv6 address's /64 (a single
    machine may hold a whole /64); an IPv4-mapped IPv6 address counts as the IPv4 one."""
    host = peer[0] if isinstance(peer, tuple) and peer else None
    if not isinstance(host, str):
        return "?"
    try:
        ip = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


class _Guesses:
    """Wrong passwords per address: how many in a row, the last when, and so how long the next
    ``hello`` without a token from there waits. Bounded: ``guess_addresses`` addresses, the
    least recently wrong forgotten first (a dict keeps insertion order; a wrong guess
    re-inserts)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._by: dict[str, tuple[int, float]] = {}

    def delay(self, count: int) -> float:
        """The wait after ``count`` (≥ 1) wrong passwords in a row."""
        lim = self.limits
        return min(lim.guess_wait * 2.0 ** min(count - 1, 40), lim.guess_wait_max)

    def _count(self, address: str, now: float) -> tuple[int, float]:
        count, last = self._by.get(address, (0, 0.0))
        if count and now - last >= self.limits.guess_forget:
            del self._by[address]
            return 0, 0.0
        return count, last

    def wait(self, address: str, now: float) -> float:
        """Seconds until a ``hello`` from ``address`` may be tried (0: now)."""
        count, last = self._count(address, now)
        return max(0.0, last + self.delay(count) - now) if count else 0.0

    def wrong(self, address: str, now: float) -> tuple[int, float]:
        """A wrong password from ``address``: wrong ones in a row, and the wait now."""
        count = self._count(address, now)[0] + 1
        self._by.pop(address, None)
        self._by[address] = (count, now)
        while len(self._by) > self.limits.guess_addresses:
            del self._by[next(iter(self._by))]
        return count, self.delay(count)

    def right(self, address: str) -> None:
        self._by.pop(address, None)

    def __len__(self) -> int:
        return len(self._by)


class _Said:
    """Log lines an attacker can cause (a refused guess, a refused connection), at most
    ``burst`` a ``window``: the host's log must not be the next thing flooded."""

    def __init__(self, burst: int, window: float) -> None:
        self.burst, self.window = burst, window
        self._start = -math.inf
        self._lines = 0
        self.held = 0  # lines not said in the current window

    def warn(self, now: float, text: str, *args: object) -> None:
        if now - self._start >= self.window:
            if self.held:
                log.warning(
                    "%d more refused connections or guesses were not logged (at most %d "
                    "lines every %.0f s)",
                    self.held,
                    self.burst,
                    self.window,
                )
            self._start, self._lines, self.held = now, 0, 0
        if self._lines < self.burst:
            self._lines += 1
            log.warning(text, *args)
        else:
            self.held += 1
