"""``python -m lanswitch``: the same as the ``lanswitch`` command."""

from lanswitch.cli import main

raise SystemExit(main())
