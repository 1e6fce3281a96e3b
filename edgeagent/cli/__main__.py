"""`python -m edgeagent.cli ...`, the same as the `edgeagent` command."""

import sys

from .main import main

sys.exit(main())
