"""pytest-physlaw: physics laws as pytest checks.

Test code uses the `law` fixture and the `law`/`known_gap` markers; `LawViolation` is the failure
of a law (an AssertionError), the only failure a known gap accepts.
"""

from pytest_physlaw.check import LawChecks, LawViolation
from pytest_physlaw.fixture import Law

__all__ = ["Law", "LawChecks", "LawViolation"]
__version__ = "0.1.0"
