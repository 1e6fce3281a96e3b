import sys

from logscan.cli import main

sys.exit(main(sys.argv[1:]))
