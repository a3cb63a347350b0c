"""pytest-physlaw: physics laws as pytest checks."""

from pytest_physlaw.check import LawChecks, LawViolation

__all__ = ["LawChecks", "LawViolation"]
__version__ = "0.1.0"
