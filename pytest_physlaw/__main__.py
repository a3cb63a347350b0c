"""`python -m pytest_physlaw compare|show|merge ...`: the `pytest-physlaw` command."""

import sys

from pytest_physlaw.cli import main

sys.exit(main())
