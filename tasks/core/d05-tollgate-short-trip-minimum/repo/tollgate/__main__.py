import sys

from tollgate.cli import main

sys.exit(main())
