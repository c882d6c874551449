import sys

from gother_tui.cli import main

sys.exit(main())
