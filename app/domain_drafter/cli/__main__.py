"""`python -m domain_drafter.cli ...`."""

import sys

from domain_drafter.cli.main import main

sys.exit(main())
