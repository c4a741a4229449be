"""``python -m lanswitch._build``: compile the rules engine and the searching bot with mypyc
(run by ``make``).

The sources are typed for ``mypy --strict``, so mypyc can compile them to C extensions as
they are: ``game``, ``heuristic`` and ``search`` (:data:`~lanswitch._native.COMPILED`) as one
group whose shared library is named :data:`~lanswitch._native.GROUP` (mypyc's own command
line would name it after a hash, at the top level of the install). The build runs in a
scratch copy of the package (so no project file steers setuptools), copies the extensions
back beside the sources, and records the digest of the sources it was built from;
:mod:`lanswitch._native` loads them only while that digest matches. Exit status 1 if the
build fails: the pure Python engine then runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ._native import COMPILED, GROUP, HERE, PACKAGES, STAMP, compiled_files, source_digest

#: The setup script mypyc's own command line would write, with the group named.
SETUP = (
    "from setuptools import setup\n"
    "from mypyc.build import mypycify\n"
    "setup(name='lanswitch-engine', ext_modules=mypycify({paths!r}, group_name={group!r}), "
    "script_args=['build_ext', '--inplace'])\n"
)


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
        paths = [f"lanswitch/{name}.py" for name in COMPILED]
        setup = SETUP.format(paths=paths, group=f"lanswitch.{GROUP}")
        proc = subprocess.run(
            [sys.executable, "-c", setup],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        wanted = (*COMPILED, f"{GROUP}__mypyc")
        built = [
            p
            for p in pkg.iterdir()
            if p.suffix in (".so", ".pyd") and p.name.split(".", 1)[0] in wanted
        ]
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
    print(f"lanswitch: compiled the engine ({', '.join(sorted(p.name for p in built))})")
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
