"""The host's TLS identity, fingerprints, pinned handshakes over loopback and the pin store."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import ssl
import stat
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

from lanswitch.tls import (
    CERT_FILE,
    KEY_FILE,
    WORDS,
    FingerprintMismatch,
    Identity,
    IdentityError,
    PinChanged,
    PinStore,
    PinStoreError,
    PinVerdict,
    check_peer,
    client_context,
    fingerprint_hex,
    fingerprint_short,
    fingerprint_words,
    load_or_create_identity,
    open_pinned_connection,
    parse_fingerprint,
    server_context,
)

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def identities(tmp_path_factory: pytest.TempPathFactory) -> tuple[Identity, Identity]:
    """Two different host identities (key generation is cheap, but share them anyway)."""
    a = load_or_create_identity(tmp_path_factory.mktemp("host-a"), host="alpha")
    b = load_or_create_identity(tmp_path_factory.mktemp("host-b"), host="beta")
    return a, b


# --- identity -----------------------------------------------------------------------------


def test_identity_is_created_once_and_reused(tmp_path: Path) -> None:
    first = load_or_create_identity(tmp_path / "data", host="myhost", now=NOW)
    assert first.created
    cert_bytes = first.cert_path.read_bytes()
    again = load_or_create_identity(tmp_path / "data")
    assert not again.created
    assert again.fingerprint == first.fingerprint
    assert again.cert_path.read_bytes() == cert_bytes
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted([CERT_FILE, KEY_FILE])


def test_key_file_is_private(tmp_path: Path) -> None:
    ident = load_or_create_identity(tmp_path, host="myhost")
    assert stat.S_IMODE(ident.key_path.stat().st_mode) == 0o600
    ident.key_path.chmod(0o644)  # someone loosened it: the next load tightens it again
    load_or_create_identity(tmp_path)
    assert stat.S_IMODE(ident.key_path.stat().st_mode) == 0o600


def test_certificate_contents(tmp_path: Path) -> None:
    ident = load_or_create_identity(tmp_path, host="myhost", now=NOW)
    cert = x509.load_pem_x509_certificate(ident.cert_path.read_bytes())
    key = cert.public_key()
    assert isinstance(key, ec.EllipticCurvePublicKey)
    assert key.curve.name == "secp256r1"
    assert cert.subject == cert.issuer  # self-signed
    assert "myhost" in cert.subject.rfc4514_string()
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert {"myhost", "myhost.local", "localhost"} <= set(san.get_values_for_type(x509.DNSName))
    assert cert.not_valid_after_utc - cert.not_valid_before_utc > dt.timedelta(days=3650)
    assert cert.not_valid_before_utc <= NOW


def test_mismatched_or_damaged_files_are_refused_not_replaced(tmp_path: Path) -> None:
    a = load_or_create_identity(tmp_path / "a", host="a")
    b = load_or_create_identity(tmp_path / "b", host="b")
    b.cert_path.write_bytes(a.cert_path.read_bytes())
    with pytest.raises(IdentityError, match="does not belong"):
        load_or_create_identity(tmp_path / "b")
    b.cert_path.write_text("garbage")
    with pytest.raises(IdentityError, match="cannot read"):
        load_or_create_identity(tmp_path / "b")
    assert b.cert_path.read_text() == "garbage"


# --- fingerprints -------------------------------------------------------------------------


def test_wordlist() -> None:
    assert len(WORDS) == 256
    assert len(set(WORDS)) == 256
    assert all(w.isalpha() and w.islower() and 3 <= len(w) <= 7 for w in WORDS)


def test_fingerprint_forms_are_stable() -> None:
    fp = bytes(range(32))
    assert fingerprint_words(fp) == " ".join(WORDS[:6])
    assert fingerprint_words(fp, 4) == "acorn actor adult agent"
    assert fingerprint_short(fp) == "0001-0203-0405-0607"
    assert fingerprint_hex(fp) == bytes(range(32)).hex()
    assert parse_fingerprint(fingerprint_hex(fp)) == fp
    assert parse_fingerprint(":".join(f"{b:02X}" for b in fp)) == fp
    assert parse_fingerprint(fp) == fp
    with pytest.raises(ValueError, match="64 hex digits"):
        parse_fingerprint("abcd")
    with pytest.raises(ValueError, match="not a hex"):
        parse_fingerprint("zz" * 32)


def test_identity_words_stable_and_distinct(
    identities: tuple[Identity, Identity], tmp_path: Path
) -> None:
    a, b = identities
    assert a.words == fingerprint_words(a.fingerprint)
    assert len(a.words.split()) == 6
    assert a.words != b.words
    assert a.short != b.short
    assert len(a.hex) == 64
    # the same files give the same words in a later run
    assert load_or_create_identity(a.cert_path.parent).words == a.words


# --- a real handshake over loopback -------------------------------------------------------


async def _echo_server(identity: Identity) -> tuple[asyncio.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            data = await reader.read(100)
            writer.write(data.upper())
            await writer.drain()
        except (OSError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=server_context(identity))
    port = server.sockets[0].getsockname()[1]
    return server, port


def test_handshake_with_the_right_pin(identities: tuple[Identity, Identity]) -> None:
    a, _ = identities

    async def run() -> tuple[bytes, str | None, bytes]:
        server, port = await _echo_server(a)
        async with server:
            reader, writer = await open_pinned_connection("127.0.0.1", port, a.hex, timeout=5)
            tls = writer.get_extra_info("ssl_object")
            assert isinstance(tls, ssl.SSLObject)
            got = check_peer(tls, a.fingerprint)
            writer.write(b"hello")
            await writer.drain()
            answer = await asyncio.wait_for(reader.read(100), 5)
            writer.close()
            await writer.wait_closed()
            return answer, tls.version(), got

    answer, version, got = asyncio.run(run())
    assert answer == b"HELLO"
    assert version == "TLSv1.3"
    assert got == a.fingerprint


def test_handshake_with_a_wrong_pin_is_refused(identities: tuple[Identity, Identity]) -> None:
    a, b = identities

    async def run() -> None:
        server, port = await _echo_server(a)
        async with server:
            await open_pinned_connection("127.0.0.1", port, b.hex, timeout=5)

    with pytest.raises(FingerprintMismatch) as info:
        asyncio.run(run())
    assert info.value.expected == b.fingerprint
    assert info.value.actual == a.fingerprint
    assert b.words in str(info.value)
    assert a.words in str(info.value)


def test_server_refuses_tls_1_2(identities: tuple[Identity, Identity]) -> None:
    a, _ = identities
    old = client_context()
    old.minimum_version = ssl.TLSVersion.TLSv1_2
    old.maximum_version = ssl.TLSVersion.TLSv1_2

    async def run() -> None:
        server, port = await _echo_server(a)
        async with server:
            await open_pinned_connection("127.0.0.1", port, a.hex, timeout=5, context=old)

    # the server aborts the handshake: an alert, or a reset before the alert is read
    with pytest.raises((ssl.SSLError, ConnectionError)):
        asyncio.run(run())


# --- trust on first use -------------------------------------------------------------------


def test_pin_store_trust_on_first_use(
    identities: tuple[Identity, Identity], tmp_path: Path
) -> None:
    a, b = identities
    store = PinStore.in_dir(tmp_path)
    assert store.get("alpha") is None
    assert store.check("alpha", a.hex, now=NOW) is PinVerdict.NEW
    assert store.check("alpha", a.fingerprint) is PinVerdict.KNOWN
    assert store.check("beta", b.hex) is PinVerdict.NEW  # another host, its own pin
    pin = PinStore.in_dir(tmp_path).get("alpha")  # a fresh store reads the same file
    assert pin is not None
    assert pin.fingerprint == a.fingerprint
    assert pin.first_seen == "2026-11-29T12:00:00+00:00"
    data = json.loads((tmp_path / "pins.json").read_text())
    assert data["version"] == 1
    assert data["pins"]["alpha"] == {"fingerprint": a.hex, "first_seen": pin.first_seen}


def test_pin_store_refuses_a_changed_fingerprint_until_accepted(
    identities: tuple[Identity, Identity], tmp_path: Path
) -> None:
    a, b = identities
    store = PinStore.in_dir(tmp_path)
    store.check("alpha", a.hex, now=NOW)
    with pytest.raises(PinChanged) as info:
        store.check("alpha", b.hex)
    message = str(info.value)
    assert "HAS CHANGED" in message
    assert a.words in message
    assert b.words in message
    assert "--accept-new-fingerprint" in message
    assert info.value.old.fingerprint == a.fingerprint
    assert info.value.new == b.fingerprint
    pin = store.get("alpha")
    assert pin is not None
    assert pin.fingerprint == a.fingerprint  # nothing changed
    # the user compared the words and said yes
    assert store.check("alpha", b.hex, accept_change=True) is PinVerdict.REPLACED
    assert store.check("alpha", b.hex) is PinVerdict.KNOWN
    with pytest.raises(PinChanged):
        store.check("alpha", a.hex)
    store.accept("alpha", a.hex)
    assert store.check("alpha", a.hex) is PinVerdict.KNOWN
    assert store.forget("alpha")
    assert not store.forget("alpha")
    assert store.check("alpha", b.hex) is PinVerdict.NEW


def test_damaged_pin_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pins.json").write_text("{not json")
    with pytest.raises(PinStoreError, match="damaged"):
        PinStore.in_dir(tmp_path).check("alpha", "00" * 32)
    assert (tmp_path / "pins.json").read_text() == "{not json"
