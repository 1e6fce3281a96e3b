import sys

from fleetops.cli.main import main

sys.exit(main())
