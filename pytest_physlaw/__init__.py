"""pytest-physlaw: physics laws as pytest checks.

Test code uses the `law` fixture and the `law`/`known_gap` markers; `LawViolation` is the failure
of a law (an AssertionError), the only failure a known gap accepts.

PYTEST_DONT_REWRITE: the plugin gives its verdicts as LawViolation tables, never with `assert`, so
pytest's assertion rewriting has nothing to do here. Saying so also spares in-process pytester runs
the "Module already imported so cannot be rewritten" warning: the outer run imported the plugin
before the inner run could mark it for rewriting.
"""

from pytest_physlaw.check import LawChecks, LawViolation
from pytest_physlaw.fixture import Law

__all__ = ["Law", "LawChecks", "LawViolation"]
__version__ = "0.1.0"
