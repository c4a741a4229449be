"""What the wire's strict decoding costs (issue 11's repeated-key check, issue 27 moved it here
from a timed assert in tests/test_protocol.py: speed is measured in benchmarks, never asserted
in tests).

Every frame of ``protocol/vectors/frames.json`` decoded two ways in one run, alternating:

- the anchor: msgpack alone (with the same size limits), then the same schema check
  (``decode_message``), what a decoder without the repeated-key check does;
- lanswitch's ``decode_frame_payload``: the same, with maps that give a key twice refused.

The target: the check costs at most half again (×1.5); measured about ×1.07 summed over the
frames. Usage: ``python benchmarks/decode.py [--rounds N] [--number N] [--json]``. No
network; bounded by ``--rounds`` × ``--number``.
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lanswitch import protocol as p  # noqa: E402
from lanswitch.protocol._codec import _UNPACK_LIMITS  # noqa: E402

TARGET = 1.5


def measure(rounds: int, number: int) -> dict[str, float]:
    frames = json.loads((ROOT / "protocol" / "vectors" / "frames.json").read_text("utf-8"))
    payloads = [bytes.fromhex(f["hex"])[4:] for f in frames["frames"]]

    def anchor() -> None:
        for b in payloads:
            p.decode_message(msgpack.unpackb(b, raw=False, strict_map_key=True, **_UNPACK_LIMITS))

    def ours() -> None:
        for b in payloads:
            p.decode_frame_payload(b)

    best_anchor = best_ours = float("inf")
    for _ in range(rounds):  # alternating, so that a busy moment falls on both
        best_anchor = min(best_anchor, timeit.timeit(anchor, number=number))
        best_ours = min(best_ours, timeit.timeit(ours, number=number))
    per = number * len(payloads)
    return {
        "frames": len(payloads),
        "anchor_us_per_frame": best_anchor / per * 1e6,
        "ours_us_per_frame": best_ours / per * 1e6,
        "ratio": best_ours / best_anchor,
        "target": TARGET,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7, help="best of this many (default 7)")
    ap.add_argument("--number", type=int, default=200, help="passes over the frames a round")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    r = measure(max(1, args.rounds), max(1, args.number))
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"decode of {r['frames']} frames (best of {args.rounds} rounds, alternating):")
    print(f"  msgpack + schema check (anchor): {r['anchor_us_per_frame']:.2f} µs a frame")
    print(f"  lanswitch, repeated keys refused: {r['ours_us_per_frame']:.2f} µs a frame")
    met = "met" if r["ratio"] <= TARGET else "NOT met"
    print(f"  ratio: ×{r['ratio']:.3f} (target ≤ ×{TARGET}: {met})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
