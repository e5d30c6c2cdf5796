"""Entry point: `python3 scripts/gen_corpus ...`, or `python3 -m gen_corpus ...` with scripts/ on the path."""

import os
import sys

if not __package__:
    # Run as a folder: Python put this folder itself first on sys.path, where the package's
    # modules would load as top-level ones. Put its parent there so it imports as a package.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

from gen_corpus.cli import main  # noqa: E402

sys.exit(main())
