"""``python -m lanswitch._build``: compile the rules engine with mypyc (run by ``make``).

The engine's source is typed for ``mypy --strict``, so mypyc can compile it to a C extension
as it is. The build runs in a scratch copy of the package (so no project file steers
setuptools), copies the extension back beside ``game.py``, and records the digest of the
sources it was built from; :mod:`lanswitch._native` loads the extension only while that
digest matches. Exit status 1 if the build fails: the pure Python engine then runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ._native import HERE, PACKAGES, STAMP, compiled_files, source_digest


def main() -> int:
    digest = source_digest()
    with tempfile.TemporaryDirectory(prefix="lanswitch-build-") as tmp:
        pkg = Path(tmp) / "lanswitch"
        pkg.mkdir()
        for src in HERE.glob("*.py"):
            shutil.copy2(src, pkg / src.name)
        # The packages the engine imports (``rules``, with its preset files) come too.
        for package in PACKAGES:
            shutil.copytree(
                HERE / package, pkg / package, ignore=shutil.ignore_patterns("__pycache__")
            )
        proc = subprocess.run(
            [sys.executable, "-m", "mypyc", "lanswitch/game.py"],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        built = [p for p in pkg.glob("game*.*") if p.suffix in (".so", ".pyd")]
        if proc.returncode != 0 or not built:
            sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
            sys.stderr.write("lanswitch: could not compile the engine; the pure one will run\n")
            return 1
        STAMP.unlink(missing_ok=True)
        for old in compiled_files():
            old.unlink()
        for ext in built:
            shutil.copy2(ext, HERE / ext.name)
    STAMP.write_text(digest + "\n", encoding="ascii")
    print(f"lanswitch: compiled the engine ({', '.join(p.name for p in built)})")
    return 0


def run() -> int:
    """:func:`main`, with Ctrl-C one line (it printed a traceback from deep in subprocess):
    nothing was copied yet, so the pure engine runs, and the next ``make`` compiles again."""
    try:
        return main()
    except KeyboardInterrupt:
        sys.stderr.write(
            "\nlanswitch: compiling the engine was interrupted; the pure Python engine will "
            "run (make compiles it next time)\n"
        )
        return 130


if __name__ == "__main__":
    raise SystemExit(run())
