"""The service and its records: the DNS-SD service type, the instance label a table's name
becomes, and :class:`Table` — one table as a browser reads it from its SRV, TXT and address
records (the TXT keys: the package docstring).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo

from ..errors import InvalidInput

#: The DNS-SD service type a table is advertised and looked for as.
DEFAULT_SERVICE_TYPE = "_lanswitch._tcp.local."
#: ``LANSWITCH_SERVICE_TYPE`` sets another for a process and the processes it starts: tables
#: advertised under one type are unseen by browsers of another. The test suite gives each of
#: its processes one of its own (``tests/conftest.py``), so that tests run side by side on one
#: machine's loopback never see each other's tables (two tables named "ann's table" at once
#: were renamed, and a join by name could reach the other test's table).
SERVICE_ENV = "LANSWITCH_SERVICE_TYPE"


def _service_type(given: str | None) -> str:
    if not given:
        return DEFAULT_SERVICE_TYPE
    if not re.fullmatch(r"_[a-z][a-z0-9-]{0,14}\._tcp\.local\.", given):
        raise InvalidInput(
            f"{SERVICE_ENV}={given!r} is not a service type such as {DEFAULT_SERVICE_TYPE} "
            "(an underscore, a letter, up to 14 more letters, digits or hyphens, then "
            "._tcp.local.)"
        )
    return given


SERVICE_TYPE = _service_type(os.environ.get(SERVICE_ENV))

_MAX_LABEL = 63  # bytes in one DNS label
_FLAGS_QUERY = 0x0000
_TYPE_A = 1
_TYPE_PTR = 12
_CLASS_IN = 1
_TYPE_SUFFIX = "." + SERVICE_TYPE.lower()


def _dns_label(text: str, fallback: str) -> str:
    """A host-name label: lowercase letters, digits and hyphens only."""
    label = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:40].strip("-")
    return label or fallback


def _instance_label(name: str) -> str:
    """The table name as a DNS-SD instance label: no dots or control characters, ≤ 63 bytes."""
    cleaned = "".join(ch if ch.isprintable() and ch != "." else " " for ch in name)
    cleaned = " ".join(cleaned.split()) or "lanswitch"
    raw = cleaned.encode()[: _MAX_LABEL - 4]  # room for a "-NN" suffix on a name clash
    return raw.decode(errors="ignore").rstrip() or "lanswitch"


@dataclass(frozen=True, slots=True)
class Table:
    """One advertised table as a browser sees it."""

    name: str  # the instance name: unique on the LAN, what `lanswitch join NAME` takes
    addresses: tuple[str, ...]  # IPv4, as advertised (try them all)
    port: int
    rules: str
    seats_free: int | None
    seats_total: int | None
    version: int | None  # the wire protocol version; None if unreadable
    fingerprint: str  # 64 hex digits, "" if missing
    host: str  # the host machine's name
    server: str  # the mDNS host name the addresses belong to
    blind: bool = False  # every hand dealt dealer-blind (TXT ``blind=1``)
    locked: bool = False  # joining needs the table's password (TXT ``pw=1``)

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "addresses": list(self.addresses),
            "port": self.port,
            "rules": self.rules,
            "free_seats": self.seats_free,
            "seats": self.seats_total,
            "version": self.version,
            "fingerprint": self.fingerprint,
            "host": self.host,
            "dealer_blind": self.blind,
            "password": self.locked,
        }


def _int_or_none(text: str | None) -> int | None:
    if text is None or not text.isdigit():
        return None
    return int(text)


def _table_from_props(
    name: str, addresses: Sequence[str], port: int, props: dict[str, str], server: str
) -> Table:
    fp = props.get("fp", "").lower()
    if not re.fullmatch(r"[0-9a-f]{64}", fp):
        fp = ""
    return Table(
        name=name,
        addresses=tuple(addresses),
        port=port,
        rules=props.get("rules", ""),
        seats_free=_int_or_none(props.get("free")),
        seats_total=_int_or_none(props.get("seats")),
        version=_int_or_none(props.get("v")),
        fingerprint=fp,
        host=props.get("host", ""),
        server=server,
        # Only "1" says so: a record from before the key existed, or garbled, reads as a
        # table like any other (its hands' own messages say dealer-blind or not anyway).
        blind=props.get("blind") == "1",
        locked=props.get("pw") == "1",
    )


def _table_from_info(info: AsyncServiceInfo) -> Table:
    props: dict[str, str] = {}
    for k, v in info.properties.items():
        if isinstance(k, bytes):
            props[k.decode(errors="replace")] = (
                v.decode(errors="replace") if isinstance(v, bytes) else ""
            )
    return _table_from_props(
        info.name.removesuffix("." + SERVICE_TYPE),
        info.parsed_addresses(IPVersion.V4Only),
        info.port or 0,
        props,
        info.server or "",
    )


def _txt_properties(text: bytes) -> dict[str, str]:
    """A TXT record's ``key=value`` strings (RFC 6763 §6: each string after its length byte;
    the first of a repeated key counts, a key without ``=`` has the value "")."""
    props: dict[str, str] = {}
    i = 0
    while i < len(text):
        n = text[i]
        item = text[i + 1 : i + 1 + n]
        i += 1 + n
        key, sep, value = item.partition(b"=")
        k = key.decode(errors="replace")
        if k and k not in props:
            props[k] = value.decode(errors="replace") if sep else ""
    return props


def _instance_of(record_name: str) -> str:
    """The instance name of a record of our service type, as the responder spelled it."""
    return record_name[: -len(_TYPE_SUFFIX)]
