"""A simulated LAN of Linux network namespaces, for tests that need real multicast and TCP.

Why namespaces: zeroconf in the machine's own namespace multicasts on the real network (never
allowed in a test, see ``/work/shared/notes/lan.md``), and loopback cannot show what a LAN
shows — separate machines, separate addresses, a laptop dropping off the Wi-Fi. Here a bridge
namespace ``lsw-<tag>-lan`` holds ``br0`` (multicast snooping off, so mDNS floods to every
port), and each node (``host``, ``l1``, ``l2``, …) is a namespace ``lsw-<tag>-<node>`` whose
``eth0`` is one end of a veth pair; the other end is a port of ``br0``. Nodes get
``10.77.0.1`` (the first, ``host``), ``10.77.0.2``, … on a /24. The root namespace is never
touched and nothing links to a real interface, so nothing leaves the machine.

``<tag>`` is the test process's id and a few random hex digits, so concurrent runs (another
checkout's ``make test``) never meet. Every namespace is deleted by its own name in
:meth:`Lan.close`, which also runs when setup fails half-way; every process this harness
starts is kept by its pid and killed by that pid only. Every wait is bounded in time. (A test
process killed outright cannot clean up: ``ip netns list`` shows its ``lsw-<tag>-*``
namespaces, and ``ip netns del NAME`` removes each.)

Needs root (``CAP_SYS_ADMIN`` and ``CAP_NET_ADMIN``) and ``ip`` from iproute2;
:func:`lan_or_skip` skips the test with the reason when they are missing.

Use::

    with lan_or_skip(tmp_path, laptops=3) as lan:
        server = lan.start("host", [sys.executable, "-m", "lanswitch", ...], name="host")
        lan.run("l1", [sys.executable, "-c", "..."], timeout=10)
        lan.link_down("l2"); ...; lan.link_up("l2")
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = [
    "PREFIX_LEN",
    "SUBNET",
    "Lan",
    "LanUnavailableError",
    "Node",
    "NodeProcess",
    "lan_or_skip",
    "why_no_lan",
]

#: The simulated LAN's addresses: node ``i`` (0 for ``host``) is ``10.77.0.{i + 1}``.
SUBNET = "10.77.0"
PREFIX_LEN = 24
#: The longest one ``ip`` command may take (they take milliseconds; a hang is a bug).
IP_TIMEOUT = 10.0
#: How long a process gets to exit after SIGTERM before SIGKILL, at teardown.
TERM_GRACE = 3.0
#: How often the waits below look again.
POLL = 0.05


class LanUnavailableError(RuntimeError):
    """The machine cannot make the simulated LAN (not root, no ``ip``, no namespaces)."""


def why_no_lan() -> str | None:
    """Why this machine cannot run the simulated LAN, or None if it may (cheap checks only;
    :class:`Lan` itself raises :class:`LanUnavailableError` when ``ip netns add`` is refused)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "the simulated LAN needs root (network namespaces); run as root, as CI does"
    if shutil.which("ip") is None:
        return "the simulated LAN needs `ip` (Debian package iproute2), which is not installed"
    return None


@dataclass(frozen=True, slots=True)
class Node:
    """One machine on the simulated LAN."""

    name: str  # "host", "l1", …
    netns: str  # its namespace's name
    address: str  # its IPv4 address on eth0
    port: str  # its veth end in the bridge namespace


@dataclass(slots=True)
class NodeProcess:
    """A background process in a node; stdout and stderr go to files (no pipe can fill up)."""

    name: str
    node: Node
    argv: tuple[str, ...]
    popen: subprocess.Popen[bytes]
    stdout_path: Path
    stderr_path: Path

    @property
    def pid(self) -> int:
        """The command's own pid (``ip netns exec`` execs it): the only one we ever signal."""
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status if it has exited (negative: killed by that signal), else None."""
        return self.popen.poll()

    def stdout(self) -> str:
        """Everything it has written to stdout so far."""
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")

    def stderr(self) -> str:
        """Everything it has written to stderr so far."""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def lines(self) -> list[str]:
        """Its complete stdout lines so far: a line still being written is left out until
        the process has exited."""
        exited = self.returncode is not None
        text = self.stdout()
        return text.splitlines() if exited or text.endswith("\n") else text.splitlines()[:-1]

    def wait_for_line(self, pattern: str | re.Pattern[str], timeout: float) -> re.Match[str]:
        """The first stdout line matching ``pattern`` (``re.search``), waiting up to
        ``timeout`` seconds; AssertionError with both outputs if it never comes or the
        process exits without it."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        for _ in range(int(timeout / POLL) + 2):  # bounded; the deadline ends it first
            exited = self.returncode is not None
            for line in self.lines():
                found = regex.search(line)
                if found is not None:
                    return found
            if exited or time.monotonic() >= deadline:
                break
            time.sleep(POLL)
        why = f"exited with {self.returncode}" if self.returncode is not None else "timed out"
        raise AssertionError(
            f"{self.name}: no stdout line matching {regex.pattern!r} ({why} after "
            f"{timeout:.0f} s)\n{self.describe()}"
        )

    def wait(self, timeout: float) -> int:
        """Its exit status, waiting up to ``timeout`` seconds; AssertionError (with its
        output) if it is still running then — teardown kills it."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"{self.name}: still running after {timeout:.0f} s\n{self.describe()}"
            ) from None

    def describe(self) -> str:
        """Its command, status and output, for a failure message."""
        return (
            f"--- {self.name} in {self.node.netns} (pid {self.pid}, exit {self.returncode}): "
            f"{' '.join(self.argv)}\n--- stdout:\n{self.stdout()}--- stderr:\n{self.stderr()}"
        )

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after :data:`TERM_GRACE` s: by this process's own pid only."""
        if self.popen.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.popen.send_signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout=TERM_GRACE)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                self.popen.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=TERM_GRACE)


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``ip ARGS`` with a bounded time; with ``check``, RuntimeError naming the command
    and what ``ip`` said if it fails."""
    done = subprocess.run(
        ["ip", *args],
        capture_output=True,
        text=True,
        timeout=IP_TIMEOUT,
        check=False,
    )
    if check and done.returncode != 0:
        said = done.stderr.strip() or f"exit status {done.returncode}"
        raise RuntimeError(f"`ip {' '.join(args)}` failed: {said}")
    return done


def _netns_names() -> set[str]:
    """The namespaces ``ip netns list`` shows (its lines look like ``name (id: 3)``)."""
    listed = _ip("netns", "list", check=False).stdout
    return {line.split()[0] for line in listed.splitlines() if line.strip()}


class Lan:
    """A bridge namespace and one namespace per node, made in ``__init__`` and deleted in
    :meth:`close` (a context manager does that). Node names are ``host`` then ``l1``, ``l2``…

    Raises :class:`LanUnavailableError` when the machine refuses (after undoing what it made).
    """

    def __init__(self, workdir: Path, *, laptops: int = 3, tag: str | None = None) -> None:
        if not 1 <= laptops <= 200:
            raise ValueError("laptops must be 1..200 (one /24, the host included)")
        self.workdir = workdir
        self.tag = tag or f"{os.getpid() % 100000}{secrets.token_hex(2)}"
        self.bridge_netns = f"lsw-{self.tag}-lan"
        names = ["host", *(f"l{i}" for i in range(1, laptops + 1))]
        self.nodes: dict[str, Node] = {
            name: Node(
                name=name,
                netns=f"lsw-{self.tag}-{name}",
                address=f"{SUBNET}.{i + 1}",
                port=f"p-{name}",
            )
            for i, name in enumerate(names)
        }
        self.processes: list[NodeProcess] = []
        self._made: list[str] = []  # namespaces created, in order; deleted in reverse
        self._closed = False
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    # -- building and tearing down ------------------------------------------------------

    def _add_netns(self, name: str) -> None:
        done = _ip("netns", "add", name, check=False)
        if done.returncode != 0:
            raise LanUnavailableError(
                f"`ip netns add` failed ({done.stderr.strip() or done.returncode}): "
                "network namespaces need root with CAP_SYS_ADMIN"
            )
        self._made.append(name)
        _ip("-n", name, "link", "set", "lo", "up")

    def _build(self) -> None:
        br = self.bridge_netns
        self._add_netns(br)
        done = _ip(
            "-n", br, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0", check=False
        )
        if done.returncode != 0:
            raise LanUnavailableError(f"cannot make a bridge: {done.stderr.strip()}")
        _ip("-n", br, "link", "set", "br0", "up")
        for node in self.nodes.values():
            self._add_netns(node.netns)
            # Before eth0 exists, so it inherits "default": its IPv6 link-local address is
            # usable at once (no duplicate address detection to wait for). IPv6 may be off.
            self._sysctl_zero(node, "net/ipv6/conf/all/accept_dad")
            self._sysctl_zero(node, "net/ipv6/conf/default/accept_dad")
            veth = ("type", "veth", "peer", "name", "eth0", "netns", node.netns)
            done = _ip("-n", br, "link", "add", node.port, *veth, check=False)
            if done.returncode != 0:
                raise LanUnavailableError(f"cannot make a veth pair: {done.stderr.strip()}")
            _ip("-n", br, "link", "set", node.port, "master", "br0")
            _ip("-n", br, "link", "set", node.port, "up")
            _ip("-n", node.netns, "addr", "add", f"{node.address}/{PREFIX_LEN}", "dev", "eth0")
            _ip("-n", node.netns, "link", "set", "eth0", "up")

    def _sysctl_zero(self, node: Node, key: str) -> None:
        """Write 0 to ``/proc/sys/KEY`` inside the node (``sh``: no ``sysctl`` binary needed);
        a missing key (IPv6 disabled) is fine."""
        path = f"/proc/sys/{key}"
        self.run(node.name, ["sh", "-c", f"[ ! -e {path} ] || echo 0 > {path}"], timeout=5)

    def close(self) -> None:
        """Kill every process started here (by pid), then delete every namespace made here
        (by name, nodes before the bridge). Idempotent; RuntimeError names any left over."""
        if self._closed:
            return
        self._closed = True
        for proc in self.processes:
            proc.stop()
        problems: list[str] = []
        for name in reversed(self._made):
            done = _ip("netns", "del", name, check=False)
            if done.returncode != 0:
                problems.append(f"{name}: {done.stderr.strip()}")
        left = _netns_names() & set(self._made)
        if left:
            raise RuntimeError(
                f"namespaces left over: {sorted(left)} ({'; '.join(problems)}); "
                f"delete them with: ip netns del NAME"
            )

    def __enter__(self) -> Lan:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- using it ---------------------------------------------------------------------------

    def node(self, name: str) -> Node:
        """The node called ``name`` (KeyError names the known ones)."""
        try:
            return self.nodes[name]
        except KeyError:
            raise KeyError(f"no node {name!r}; the nodes are {sorted(self.nodes)}") from None

    def address(self, name: str) -> str:
        """The node's IPv4 address, e.g. for ``--interface`` (a node has only that one and
        loopback, so binding zeroconf to it is what a laptop on one Wi-Fi would do)."""
        return self.node(name).address

    def run(
        self,
        node: str,
        argv: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` in ``node`` and wait at most ``timeout`` seconds for it (then it is
        killed and TimeoutExpired raised). Output is captured as text; the exit status is
        the caller's to check."""
        ns = self.node(node).netns
        return subprocess.run(
            ["ip", "netns", "exec", ns, *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=None if env is None else dict(env),
            cwd=cwd,
            check=False,
        )

    def start(
        self,
        node: str,
        argv: Sequence[str],
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> NodeProcess:
        """Start ``argv`` in ``node`` in the background. Its stdout and stderr go to
        ``<workdir>/<name>.out`` and ``.err``; :meth:`close` stops it by its pid
        (``ip netns exec`` execs the command, so the pid is the command's own)."""
        if self._closed:
            raise RuntimeError("the LAN is torn down")
        n = self.node(node)
        out_path = self.workdir / f"{name}.out"
        err_path = self.workdir / f"{name}.err"
        full = ("ip", "netns", "exec", n.netns, *argv)
        with out_path.open("wb") as out, err_path.open("wb") as err:
            popen = subprocess.Popen(
                full,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=None if env is None else dict(env),
                cwd=cwd,
            )
        proc = NodeProcess(name, n, tuple(argv), popen, out_path, err_path)
        self.processes.append(proc)
        return proc

    def link_down(self, node: str) -> None:
        """Take the node's ``eth0`` down: the laptop drops off the Wi-Fi (its sockets stay
        open; packets to and from it are lost until :meth:`link_up`)."""
        _ip("-n", self.node(node).netns, "link", "set", "eth0", "down")

    def link_up(self, node: str) -> None:
        """Bring the node's ``eth0`` back up (its address stays configured while down)."""
        _ip("-n", self.node(node).netns, "link", "set", "eth0", "up")

    def describe(self) -> str:
        """Every process's command, status and output, for a failure message."""
        return "\n".join(p.describe() for p in self.processes)


def _interrupt(signum: int, frame: object) -> None:
    """A signal handler that unwinds the stack as Ctrl-C does (finalizers run)."""
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While inside, SIGTERM (a CI job's timeout) raises KeyboardInterrupt like Ctrl-C does,
    so the ``finally`` blocks and fixture finalizers that delete the namespaces still run;
    Python's default for SIGTERM is to die on the spot. Only where SIGTERM has its default
    handler and we are in the main thread (signal handlers can be set nowhere else)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def lan_or_skip(workdir: Path, *, laptops: int = 3) -> Iterator[Lan]:
    """A :class:`Lan` for the duration of the block, or ``pytest.skip`` with the reason this
    machine cannot make one. Torn down on the way out, whatever happened in the block (Ctrl-C
    and SIGTERM included)."""
    why = why_no_lan()
    if why is not None:
        pytest.skip(why)
    with _sigterm_interrupts():
        try:
            lan = Lan(workdir, laptops=laptops)
        except LanUnavailableError as e:
            pytest.skip(str(e))
        with lan:
            yield lan
