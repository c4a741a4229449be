"""Finding tables on the LAN with multicast DNS (a shell: zeroconf, asyncio, the clock).

A package since issue 27, split by concern; import from the package, as before
(``from lanswitch.discovery import TableBrowser``): the modules' layout is not its API.

- ``_records``: the service type, the instance label, :class:`Table` and how it is read from
  its records.
- ``_addresses``: this machine's IPv4 addresses, the interfaces zeroconf binds to, the order a
  client tries a table's addresses in (:func:`preferred_order`).
- ``_advertise``: :class:`TableAdvertiser`, the host's side.
- ``_browse``: :class:`TableBrowser` and every responder's answer kept apart
  (:class:`_Answers`), :func:`list_tables`, :func:`answers` (is the host still there).
- ``_choose``: which table a name means (:func:`same_name`, :func:`conflicts`,
  :func:`pick_table`, :class:`TableChoiceError`).

A host advertises its table as a DNS-SD service of type ``_lanswitch._tcp.local.``
(:class:`TableAdvertiser`); the instance name is the table's name, made unique on the LAN by
zeroconf (a second "Kitchen" becomes "Kitchen-2"). The TXT record carries what a client needs
before it connects:

- ``v``: the wire protocol version (decimal)
- ``name``: the table's name (the instance name, after any renaming)
- ``rules``: the rule set's name
- ``free``: free seats (updated live as players come and go)
- ``seats``: seats in all
- ``fp``: the SHA-256 fingerprint of the host's TLS certificate (64 hex digits)
- ``host``: the host machine's name
- ``blind``: ``1`` at a table that deals every hand dealer-blind (the host cannot see a card
  it is not dealt); absent otherwise, so a table as it always was advertises as it did
- ``pw``: ``1`` at a table that needs a password to join (never the password itself: only
  that a browser should ask for one before joining); absent otherwise

Only IPv4 is used (a v4-only host and a v6-only browser never meet; dual stack sometimes
resolves only a link-local address). Both sides use every interface by default, or only the
addresses given (``--interface ADDR``; the tests use ``["127.0.0.1"]``). On shutdown the host
sends a goodbye, so browsers drop the table at once; after a crash there is none, and the
record lingers until it expires (up to 75 min for the TXT record, 2 min for the address):
clients must treat a failed connect as the table being gone (:meth:`TableBrowser.forget`).

:class:`TableBrowser` keeps a live map of tables; :func:`list_tables` is the one-shot form for
``lanswitch tables --timeout S``.

**A name is not an identity.** Multicast DNS compares names without regard to case, and
nothing stops a second machine from answering for a name already taken (a responder may skip
the probe that would make it rename itself). Two answers for one name then share every cache
slot: a resolver reads one server (SRV) record and one TXT record for the name, perhaps one
responder's SRV beside the other's TXT, and which one flips as each evicts the other. So the
browser also keeps every responder's answer apart (:class:`_Answers`): the records of one mDNS
response come from one responder, and a response holding a table's SRV and TXT records is one
whole answer. :meth:`TableBrowser.answers` lists them all, two for a name when two
fingerprints answer for it, and :func:`pick_table` refuses to guess between them: the
fingerprint, checked in the TLS handshake, is the table's identity; the name only finds it.
Names are compared as people read them (:func:`lanswitch.textsafe.fold_name`).
"""

from __future__ import annotations

from ._addresses import local_ipv4_addresses, preferred_order
from ._advertise import REANNOUNCE_S as REANNOUNCE_S
from ._advertise import WARMUP_S as WARMUP_S
from ._advertise import TableAdvertiser
from ._browse import DEFAULT_LIST_TIMEOUT, TableBrowser, answers, list_tables
from ._browse import MAX_ANSWERS_PER_TABLE as MAX_ANSWERS_PER_TABLE
from ._browse import MAX_TABLES as MAX_TABLES
from ._browse import PROBE_TIMEOUT as PROBE_TIMEOUT
from ._browse import RESOLVE_TIMEOUT_MS as RESOLVE_TIMEOUT_MS
from ._browse import ChangeCallback as ChangeCallback
from ._choose import TableChoiceError, conflicts, pick_table, same_name
from ._records import SERVICE_TYPE, Table

__all__ = [
    "DEFAULT_LIST_TIMEOUT",
    "SERVICE_TYPE",
    "Table",
    "TableAdvertiser",
    "TableBrowser",
    "TableChoiceError",
    "answers",
    "conflicts",
    "list_tables",
    "local_ipv4_addresses",
    "pick_table",
    "preferred_order",
    "same_name",
]
