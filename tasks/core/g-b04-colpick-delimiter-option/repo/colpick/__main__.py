import sys

from colpick.cli import main

sys.exit(main(sys.argv[1:]))
