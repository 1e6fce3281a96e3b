import os
import sys

from deploykit.cli import main

sys.exit(main(sys.argv[1:], dict(os.environ)))
