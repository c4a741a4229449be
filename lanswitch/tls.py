"""The host's TLS identity and the clients' pins (a shell: files, clocks, ``ssl``).

The host makes a self-signed certificate once (ECDSA P-256, :func:`load_or_create_identity`)
and keeps it with its private key in the data dir; its SHA-256 **fingerprint** is what clients
trust. It is advertised in the table's TXT record and shown on the host's screen as a few short
words (:func:`fingerprint_words`), so two people can compare it by voice.

There is no certificate authority. The client context (:func:`client_context`) skips CA and
host-name validation; the client instead compares the peer certificate's fingerprint with the
one it expects right after the handshake (:func:`check_peer`, :func:`open_pinned_connection`)
and only then sends a byte. What to expect comes from trust on first use (:class:`PinStore`):
an unknown host is pinned, a known one must match, and a changed one is refused loudly with
:class:`PinChanged` until the user accepts the new fingerprint.

Typical use (``directory`` is :func:`lanswitch.cli.data_dir`)::

    host:   ident = load_or_create_identity(directory)        # show ident.words on screen
            server = await asyncio.start_server(..., ssl=server_context(ident))
    client: PinStore.in_dir(directory).check(table_pin_key(table.name), table.fingerprint)
            reader, writer = await open_pinned_connection(addr, port, table.fingerprint)
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import hmac
import ipaddress
import json
import re
import socket
import ssl
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from .datadir import write_private
from .errors import RemoteError, StateError
from .textsafe import fold_name

__all__ = [
    "CERT_FILE",
    "KEY_FILE",
    "PINS_FILE",
    "WORDS",
    "FingerprintChoice",
    "FingerprintMismatch",
    "Identity",
    "IdentityError",
    "Pin",
    "PinChanged",
    "PinStore",
    "PinStoreError",
    "PinVerdict",
    "address_pin_key",
    "check_peer",
    "client_context",
    "fingerprint_hex",
    "fingerprint_of_der",
    "fingerprint_short",
    "fingerprint_words",
    "load_or_create_identity",
    "open_pinned_connection",
    "parse_fingerprint",
    "parse_fingerprint_choice",
    "peer_fingerprint",
    "server_context",
    "table_pin_key",
]

CERT_FILE = "host-cert.pem"
KEY_FILE = "host-key.pem"
PINS_FILE = "pins.json"

#: Validity of a new certificate: long, since its fingerprint is the host's identity.
VALIDITY = dt.timedelta(days=20 * 365)

#: 256 short, concrete, easily spoken English words, one per byte value (0..255). Words that
#: sound alike (rocket/locket, boat/goat, cake/lake) were left out. Never reorder: the words
#: shown for a fingerprint would change.
_WORDS_TEXT = """
acorn actor adult agent alarm album alley amber angel ankle apple apron arena arrow atlas
attic aunt autumn award bacon badge bagel baker bamboo banjo barn basil beach beard beast
bell bench berry bike bird blade bloom board boat bone bonus book boot bottle bowl brain
brick bride broom brush bubble bucket bugle bunny butter cabin cactus cake camel candle
canoe canyon carpet carrot castle cat cave cello chair chalk cheese cherry chess circus
cliff clock cloud clown coal cobra cocoa coffee comet copper coral cotton cowboy crab crane
crown cube cup daisy dancer deer desert dinner doctor donkey door dragon drum duck eagle
echo elbow elk engine falcon farm feather fence ferry fiddle finger fire flag flute forest
fossil fox frog garden garlic ghost giant ginger glove gold goose grape gravel guitar hammer
harbor harp hawk helmet hippo hockey honey horse hotel igloo iron island ivory jacket jaguar
jelly jewel juice jungle kayak kettle king kite kitten koala ladder lamp lemon lion lizard
magnet mango maple marble meadow melon mirror monkey moose motor mouse muffin needle nest
noodle ocean olive onion orange otter owl oyster palace panda paper parrot peach peanut
pencil pepper piano pickle pigeon pillow pilot pine pirate pizza planet plum pocket pony
potato puppet queen rabbit radio raven robot rocket rose ruby saddle salad salmon sandal
scarf school shark sheep shell silver skate snail snake sock sofa spider spoon squid star
stone sugar sun swan table tiger toast tomato train tulip turtle valley violin wagon walnut
whale window wizard wolf yacht zebra
"""
WORDS: tuple[str, ...] = tuple(_WORDS_TEXT.split())
assert len(WORDS) == 256
assert len(set(WORDS)) == 256
_WORD_INDEX = {w: i for i, w in enumerate(WORDS)}

#: How many words :func:`fingerprint_words` shows by default (48 bits of the fingerprint).
WORD_COUNT = 6


# --- fingerprints -------------------------------------------------------------------------


def fingerprint_of_der(der: bytes) -> bytes:
    """The SHA-256 digest (32 bytes) of a DER-encoded certificate."""
    return hashlib.sha256(der).digest()


def fingerprint_hex(fingerprint: bytes) -> str:
    """The canonical text form: 64 lowercase hex digits (TXT records, pin files, JSON)."""
    return fingerprint.hex()


def fingerprint_short(fingerprint: bytes, groups: int = 4) -> str:
    """A short hex form for people: the first ``2 * groups`` bytes as ``ab12-cd34-…``."""
    h = fingerprint[: 2 * groups].hex()
    return "-".join(h[i : i + 4] for i in range(0, len(h), 4))


def fingerprint_words(fingerprint: bytes, count: int = WORD_COUNT) -> str:
    """The first ``count`` bytes of the fingerprint as words, e.g. ``"otter piano fox …"``."""
    if not 1 <= count <= len(fingerprint):
        raise ValueError(f"count must be 1..{len(fingerprint)}, not {count}")
    return " ".join(WORDS[b] for b in fingerprint[:count])


def parse_fingerprint(text: str | bytes) -> bytes:
    """A fingerprint from 32 raw bytes or 64 hex digits (``:``, ``-`` and spaces ignored)."""
    if isinstance(text, bytes):
        if len(text) != 32:
            raise ValueError(f"a SHA-256 fingerprint is 32 bytes, not {len(text)}")
        return text
    cleaned = "".join(ch for ch in text if ch not in ":- ").lower()
    try:
        raw = bytes.fromhex(cleaned)
    except ValueError:
        raise ValueError(f"not a hex fingerprint: {text!r}") from None
    if len(raw) != 32:
        raise ValueError(f"a SHA-256 fingerprint is 64 hex digits, not {len(cleaned)}: {text!r}")
    return raw


#: The fewest hex digits a fingerprint choice may give: as many bits as the six words.
MIN_CHOICE_HEX = 12


@dataclass(frozen=True, slots=True)
class FingerprintChoice:
    """Which of several answers the user picked: the start of a fingerprint, as the six words
    ``lanswitch tables`` shows (``"donkey wolf lamp shark clown berry"``) or as hex digits (at
    least :data:`MIN_CHOICE_HEX`; the whole 64 may be given)."""

    prefix: bytes
    text: str  # as the user gave it, for messages

    def matches(self, fingerprint: bytes) -> bool:
        """Whether ``fingerprint`` starts with the chosen bytes."""
        return fingerprint[: len(self.prefix)] == self.prefix


def parse_fingerprint_choice(text: str) -> FingerprintChoice:
    """``--fingerprint``'s value: the six words (or more, up to 32) or at least 12 hex
    digits (``:``, ``-`` and spaces ignored). ValueError says what is wrong."""
    words = text.replace("-", " ").lower().split()
    if words and all(w in _WORD_INDEX for w in words):
        if not WORD_COUNT <= len(words) <= 32:
            raise ValueError(
                f"give all {WORD_COUNT} fingerprint words lanswitch tables shows, "
                f"not {len(words)}: {text!r}"
            )
        return FingerprintChoice(bytes(_WORD_INDEX[w] for w in words), " ".join(words))
    cleaned = "".join(ch for ch in text if ch not in ":- ").lower()
    if re.fullmatch(r"[0-9a-f]+", cleaned) and len(cleaned) % 2 == 0:
        if not MIN_CHOICE_HEX <= len(cleaned) <= 64:
            raise ValueError(
                f"give at least {MIN_CHOICE_HEX} hex digits of the fingerprint (or its "
                f"{WORD_COUNT} words), not {len(cleaned)}: {text!r}"
            )
        return FingerprintChoice(bytes.fromhex(cleaned), cleaned)
    unknown = [w for w in words if w not in _WORD_INDEX][:1]
    why = f" ({unknown[0]!r} is not one of the fingerprint words)" if unknown else ""
    raise ValueError(
        f"not a fingerprint: {text!r}{why}; give the {WORD_COUNT} words lanswitch tables "
        f"shows, or at least {MIN_CHOICE_HEX} hex digits"
    )


# --- the host's identity ------------------------------------------------------------------


class IdentityError(StateError):
    """The certificate or key in the data dir is unreadable or they do not belong together."""


@dataclass(frozen=True, slots=True)
class Identity:
    """The host's certificate and key on disk, and the certificate's fingerprint."""

    cert_path: Path
    key_path: Path
    fingerprint: bytes
    created: bool  # made by this call (False: loaded from an earlier run)

    @property
    def hex(self) -> str:
        return fingerprint_hex(self.fingerprint)

    @property
    def short(self) -> str:
        return fingerprint_short(self.fingerprint)

    @property
    def words(self) -> str:
        return fingerprint_words(self.fingerprint)


def _host_label() -> str:
    name = socket.gethostname().split(".")[0].strip()
    return name or "lanswitch-host"


def _make_certificate(
    host: str, now: dt.datetime
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, f"lanswitch host {host}"[:64]),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "lanswitch"),
        ]
    )
    sans: list[x509.GeneralName] = [
        x509.DNSName(host),
        x509.DNSName(f"{host}.local"),
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")),
    ]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    return key, cert


def _load_identity(cert_path: Path, key_path: Path) -> Identity:
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise IdentityError(
            f"cannot read the host certificate {cert_path} or key {key_path}: {e}. Move both "
            "away to make a new identity (clients that pinned the old one will refuse it)."
        ) from e
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    der = serialization.Encoding.DER
    if cert.public_key().public_bytes(der, public) != key.public_key().public_bytes(der, public):
        raise IdentityError(f"the host certificate {cert_path} does not belong to {key_path}")
    if key_path.stat().st_mode & 0o077:
        key_path.chmod(0o600)  # tighten a key someone loosened
    return Identity(
        cert_path,
        key_path,
        fingerprint_of_der(cert.public_bytes(serialization.Encoding.DER)),
        False,
    )


def load_or_create_identity(
    directory: Path, *, host: str | None = None, now: dt.datetime | None = None
) -> Identity:
    """The host's identity from ``directory`` (the data dir), made there on first use.

    A new identity is an ECDSA P-256 key (``host-key.pem``, mode 0600, unencrypted PKCS#8)
    and a self-signed certificate (``host-cert.pem``) for ``host`` (default: this machine's
    host name) valid for 20 years. Later calls load the same files, so the fingerprint stays.
    Raises :class:`IdentityError` if the files exist but are unreadable or do not match: they
    are never silently replaced, since that would change the fingerprint.
    """
    cert_path, key_path = directory / CERT_FILE, directory / KEY_FILE
    if cert_path.exists() and key_path.exists():
        return _load_identity(cert_path, key_path)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)  # the data dir: private
    key, cert = _make_certificate(host or _host_label(), now or dt.datetime.now(dt.UTC))
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # Key first: a certificate on disk always has its key beside it.
    write_private(key_path, key_pem, 0o600)
    write_private(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return Identity(
        cert_path, key_path, fingerprint_of_der(cert.public_bytes(serialization.Encoding.DER)), True
    )


# --- contexts and the pin check -----------------------------------------------------------


def server_context(identity: Identity) -> ssl.SSLContext:
    """A server context with the host's certificate, TLS 1.3 only."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(identity.cert_path, identity.key_path)
    return ctx


def client_context() -> ssl.SSLContext:
    """A client context, TLS 1.3 only, with no CA or host-name check.

    It authenticates nothing by itself: call :func:`check_peer` with the expected fingerprint
    after the handshake and before sending anything (:func:`open_pinned_connection` does).
    """
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class FingerprintMismatch(RemoteError, ssl.SSLError):  # noqa: N818  (what happened)
    """The peer's certificate is not the pinned one."""

    def __init__(self, expected: bytes, actual: bytes | None) -> None:
        self.expected = expected
        self.actual = actual
        got = (
            "no certificate"
            if actual is None
            else f"{fingerprint_words(actual)} ({fingerprint_short(actual)})"
        )
        super().__init__(
            f"the host's certificate is not the expected one: expected "
            f"{fingerprint_words(expected)} ({fingerprint_short(expected)}), got {got}"
        )

    def __str__(self) -> str:
        return str(self.args[0])


def peer_fingerprint(tls: ssl.SSLObject | ssl.SSLSocket) -> bytes | None:
    """The SHA-256 fingerprint of the peer's certificate after the handshake (None: none)."""
    der = tls.getpeercert(binary_form=True)
    return None if der is None else fingerprint_of_der(der)


def check_peer(tls: ssl.SSLObject | ssl.SSLSocket, expected: str | bytes) -> bytes:
    """Return the peer's fingerprint if it is ``expected``, else raise FingerprintMismatch."""
    want = parse_fingerprint(expected)
    got = peer_fingerprint(tls)
    if got is None or not _eq(got, want):
        raise FingerprintMismatch(want, got)
    return got


def _eq(a: bytes, b: bytes) -> bool:
    return hmac.compare_digest(a, b)


async def open_pinned_connection(
    host: str,
    port: int,
    expected: str | bytes,
    *,
    timeout: float = 5.0,
    context: ssl.SSLContext | None = None,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect with TLS and check the pin before returning the streams.

    Raises :class:`FingerprintMismatch` (after closing the connection) if the certificate is
    not the expected one, ``TimeoutError`` if connect and handshake take over ``timeout``.
    """
    want = parse_fingerprint(expected)
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection(
            host, port, ssl=context or client_context(), server_hostname=""
        )
    tls = writer.get_extra_info("ssl_object")
    try:
        if not isinstance(tls, ssl.SSLObject | ssl.SSLSocket):
            raise FingerprintMismatch(want, None)
        check_peer(tls, want)
    except BaseException:
        writer.close()
        try:
            async with asyncio.timeout(1.0):
                await writer.wait_closed()
        except (OSError, TimeoutError, ssl.SSLError):
            pass
        raise
    return reader, writer


# --- trust on first use -------------------------------------------------------------------


class PinVerdict(StrEnum):
    """What :meth:`PinStore.check` found: a new host pinned, a known one, or an accepted change."""

    NEW = "new"  #: first contact: the fingerprint is now pinned
    KNOWN = "known"  #: the pinned fingerprint, as before
    REPLACED = "replaced"  #: a changed fingerprint the caller accepted


@dataclass(frozen=True, slots=True)
class Pin:
    """One remembered host: its fingerprint and when it was first seen (ISO 8601, UTC)."""

    fingerprint: bytes
    first_seen: str


class PinStoreError(StateError):
    """The pin file is unreadable: refuse rather than forget every pin."""


class PinChanged(RemoteError):  # noqa: N818 (reads as what happened, like IllegalMove)
    """A known host now presents a different certificate. Nothing was changed.

    It may be an attack or just a host that made a new identity. The message says what
    changed and how to accept the new fingerprint (``--accept-new-fingerprint``, or
    :meth:`PinStore.check` with ``accept_change=True``, or :meth:`PinStore.accept`).
    ``by_address`` is set when the pin was an old one kept for the address alone (before pins
    recorded the port): then another table on the same machine is the likely reason.
    """

    def __init__(self, host: str, old: Pin, new: bytes, *, by_address: bool = False) -> None:
        self.host = host
        self.old = old
        self.new = new
        self.by_address = by_address
        why = (
            "Someone may be intercepting the connection, or the host made a new identity (a "
            "new data dir or install)."
        )
        if by_address:
            why = (
                "The pin was kept for the address alone, by an older lanswitch that did not "
                "record the port: if this is another table on the same machine, that is why. "
                "Otherwise someone may be intercepting the connection."
            )
        super().__init__(
            f"THE CERTIFICATE OF {host!r} HAS CHANGED. Pinned since {old.first_seen}: "
            f"{fingerprint_words(old.fingerprint)} ({fingerprint_short(old.fingerprint)}); "
            f"now: {fingerprint_words(new)} ({fingerprint_short(new)}). {why} Refused. If the "
            "words on the host's screen are the new ones, accept them with "
            "--accept-new-fingerprint."
        )

    def __str__(self) -> str:
        return str(self.args[0])


#: A pin key for an address: ``HOST:PORT``, or ``[V6]:PORT``.
_ADDRESS_KEY = re.compile(r"(?P<host>\[[^\]]*\]|[^:\[\]]+):(?P<port>[0-9]{1,5})")
_TABLE_PREFIX = "table "


def table_pin_key(name: str) -> str:
    """The pin key of a table joined by its name: ``table`` and the name as people read it
    (:func:`lanswitch.textsafe.fold_name`: case, compatibility forms and invisible
    characters do not make another table), e.g. ``"table kitchen"`` for ``"KITCHEN"``."""
    return _TABLE_PREFIX + fold_name(name)


def address_pin_key(host: str, port: int) -> str:
    """The pin key of a table joined by address: ``HOST:PORT`` (``[V6]:PORT``). Per port, as
    one machine may host several tables, each with its own identity."""
    host = host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class PinStore:
    """Trust on first use: host identity → pinned fingerprint, in ``pins.json``.

    The key names the host for the caller: :func:`table_pin_key` for a table found by name
    (``"table kitchen"``), :func:`address_pin_key` for a join by address (``"10.0.0.5:4711"``).
    The file is JSON, ``{"version": 1, "pins": {key: {"fingerprint": hex, "first_seen":
    iso}}}``, rewritten atomically on every change.

    **Older keys** (lanswitch before issue 15) are read too, so no pin is lost: ``table NAME``
    with the name as advertised (``"table Kitchen"``) stands for ``table_pin_key(NAME)``, and
    a bare ``HOST`` for every ``HOST:PORT``. Where several old keys stand for one new key, the
    earliest pinned counts (a fake that answered later, say as ``KITCHEN``, could have been
    pinned under its own spelling). The first check that settles a key — the fingerprint
    matches, or the user accepts a new one — writes the new key and drops the old ones it
    stood for; until then they stay in the file as they were.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def in_dir(cls, directory: Path) -> PinStore:
        return cls(directory / PINS_FILE)

    def _load(self) -> dict[str, Pin]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as e:
            raise PinStoreError(f"cannot read the pin file {self.path}: {e}") from e
        try:
            data = json.loads(text)
            pins = data["pins"]
            if data.get("version") != 1 or not isinstance(pins, dict):
                raise ValueError("not a version 1 pin file")
            return {
                str(k): Pin(parse_fingerprint(str(v["fingerprint"])), str(v["first_seen"]))
                for k, v in pins.items()
            }
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise PinStoreError(
                f"the pin file {self.path} is damaged ({e}); fix or remove it (every host "
                "will then be trusted anew on first use)"
            ) from e

    def _save(self, pins: dict[str, Pin]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the data dir: private
        data = {
            "version": 1,
            "pins": {
                k: {"fingerprint": fingerprint_hex(p.fingerprint), "first_seen": p.first_seen}
                for k, p in sorted(pins.items())
            },
        }
        write_private(self.path, (json.dumps(data, indent=2) + "\n").encode(), 0o600)

    @staticmethod
    def _older_keys(pins: dict[str, Pin], key: str) -> list[str]:
        """The keys an older lanswitch wrote that stand for ``key``, earliest pinned first."""
        if key.startswith(_TABLE_PREFIX):
            found = [
                k
                for k in pins
                if k != key
                and k.startswith(_TABLE_PREFIX)
                and table_pin_key(k[len(_TABLE_PREFIX) :]) == key
            ]
        elif (m := _ADDRESS_KEY.fullmatch(key)) is not None:
            host = m["host"].strip("[]")
            found = [host] if host in pins and host != key else []
        else:
            found = []
        return sorted(found, key=lambda k: (pins[k].first_seen, k))

    def _lookup(self, pins: dict[str, Pin], key: str) -> tuple[Pin | None, list[str]]:
        """The pin for ``key`` (its own, else the earliest older one) and the older keys."""
        older = self._older_keys(pins, key)
        if key in pins:
            return pins[key], older
        return (pins[older[0]] if older else None), older

    def get(self, host: str) -> Pin | None:
        """The pin for ``host`` (a key as above; an older key standing for it counts)."""
        return self._lookup(self._load(), host)[0]

    def all(self) -> dict[str, Pin]:
        return self._load()

    def check(
        self,
        host: str,
        fingerprint: str | bytes,
        *,
        accept_change: bool = False,
        now: dt.datetime | None = None,
    ) -> PinVerdict:
        """Pin an unknown host, pass a known one, refuse a changed one with PinChanged.

        ``host`` is the pin key (:func:`table_pin_key`, :func:`address_pin_key`). Returns a
        :class:`PinVerdict`. With ``accept_change`` a changed fingerprint replaces the old pin
        (verdict ``replaced``) instead of raising.
        """
        fp = parse_fingerprint(fingerprint)
        pins = self._load()
        old, older = self._lookup(pins, host)
        if old is not None and _eq(old.fingerprint, fp):
            if host not in pins or older:  # settled: the new key replaces the older ones
                for k in older:
                    del pins[k]
                pins[host] = old
                self._save(pins)
            return PinVerdict.KNOWN
        if old is not None and not accept_change:
            by_address = host not in pins and bool(older) and not host.startswith(_TABLE_PREFIX)
            raise PinChanged(host, old, fp, by_address=by_address)
        when = (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds")
        for k in older:
            del pins[k]
        pins[host] = Pin(fp, when)
        self._save(pins)
        return PinVerdict.NEW if old is None else PinVerdict.REPLACED

    def accept(
        self, host: str, fingerprint: str | bytes, *, now: dt.datetime | None = None
    ) -> None:
        """Pin ``fingerprint`` for ``host``, replacing any earlier pin (the user said yes)."""
        self.check(host, fingerprint, accept_change=True, now=now)

    def forget(self, host: str) -> bool:
        """Drop the pin of ``host`` and the older keys standing for it; True if there was one."""
        pins = self._load()
        older = self._older_keys(pins, host)
        if pins.pop(host, None) is None and not older:
            return False
        for k in older:
            del pins[k]
        self._save(pins)
        return True
