import sys

from tinyq.cli import main

sys.exit(main(sys.argv[1:]))
