"""What a law run leaves behind: one `CheckRecord` per checked quantity, one `LawRecord` per test.

These records are the plugin's only data model. The fixture fills them, the terminal table, the
JSON report, the Markdown table, the catalogue and the baseline gate read them, and xdist workers
ship them to the controller as their JSON form (`to_json` / `from_json`).

`from_json` reads a record that `baseline.validate_report` has already type-checked (or that this
plugin wrote itself); it does not validate again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 2
DEFAULT_DRIFT = 0.01  # relative value drift the gate allows by default (ini physlaw_drift)
DEFAULT_DRIFT_FLOOR = 1e-3  # a check's zero as a share of its tight scale (ini physlaw_drift_floor)


def encode_float(x: float | None) -> float | str | None:
    """JSON has no NaN or infinity: store them as the strings "nan", "inf", "-inf"."""
    if x is None or math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def decode_float(x: float | str | None) -> float | None:
    return None if x is None else float(x)


@dataclass
class CheckRecord:
    """The worst of all checks of one quantity in one test.

    `bounds` holds the bounds as given (keys among le, lt, ge, gt, near) plus the effective `tol`
    of a `near` check; `bound` is their human form ("<= 10", "0.5 .. 2", "1 ± 0.1").
    `margin` is the normalised headroom (>= 0 when passing); `count` is how many times the
    quantity was checked (a loop, a Hypothesis example) and `size` how many values that was in all
    (array elements summed). `drift` is the relative move of the value the gate allows against the
    baseline (None: exempt) and `drift_abs` its zero: two values within it of 0 are round-off to the gate. `example` is the Hypothesis example
    the worst value came from; `where` the file:line of the worst `law.check` call (not saved: line
    numbers move with every edit, and a baseline should not).
    """

    quantity: str
    value: float
    bound: str
    bounds: dict[str, float]
    margin: float
    passed: bool
    unit: str | None = None
    why: str | None = None
    drift: float | None = DEFAULT_DRIFT
    drift_abs: float = 0.0
    count: int = 1
    size: int = 1
    example: str | None = None
    where: str | None = field(default=None, compare=False)

    def value_text(self) -> str:
        """The value as reports show it: six significant digits (as the bound), the unit, and
        "not finite" where it is. A failed `near` check also says how far off `near` it is, so that
        a value that rounds to its target still shows why it failed (with --law-tol-scale 0 this
        offset is the raw residual)."""
        text = f"{self.value:.6g}" + (f" {self.unit}" if self.unit else "")
        if not math.isfinite(self.value):
            return text + " (not finite)"
        near = self.bounds.get("near")
        if near is not None and not self.passed:
            text += f" (off by {self.value - near:+.3g})"
        return text

    def drift_text(self) -> str:
        """The gate's tolerance on this value: "±0.01 rel, zero within 1e-12", or "exempt"."""
        if self.drift is None:
            return "exempt"
        return f"±{self.drift:.3g} rel" + (f", zero within {self.drift_abs:.3g}" if self.drift_abs else "")

    def to_json(self) -> dict[str, Any]:
        out = {
            "quantity": self.quantity,
            "value": encode_float(self.value),
            "unit": self.unit,
            "bound": self.bound,
            "bounds": {k: encode_float(v) for k, v in self.bounds.items()},
            "margin": encode_float(self.margin),
            "passed": self.passed,
            "count": self.count,
            "size": self.size,
            "why": self.why,
            "drift": self.drift,
            "drift_abs": self.drift_abs,
        }
        if self.example is not None:
            out["example"] = self.example
        return out

    def wire(self) -> dict[str, Any]:
        """The JSON form plus what only travels between processes (xdist), never into a file."""
        return {**self.to_json(), "where": self.where}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CheckRecord:
        return cls(
            quantity=d["quantity"],
            value=decode_float(d["value"]),
            unit=d.get("unit"),
            bound=d["bound"],
            bounds={k: decode_float(v) for k, v in d.get("bounds", {}).items()},
            margin=decode_float(d["margin"]),
            passed=d["passed"],
            count=int(d.get("count", 1)),
            size=int(d.get("size", 1)),
            why=d.get("why"),
            drift=d.get("drift", DEFAULT_DRIFT),
            drift_abs=float(d.get("drift_abs", 0.0)),
            example=d.get("example"),
            where=d.get("where"),
        )


@dataclass
class LawRecord:
    """One law test: who it is, what it states, how it ended, and its checks in check order.

    `outcome` is one of passed, failed, error, skipped, xfailed, xpassed.
    `path` is the test file relative to the rootdir (the gate's "under the collected paths" test).
    `identity` is "law-id[case]" for a law with an explicit id (None otherwise): the baseline finds a
    law by it when its nodeid changed (a renamed or moved test). `examples` fingerprints the
    Hypothesis examples a `@given` law ran ({"count", "digest"}), None for other laws.
    """

    nodeid: str
    path: str
    law: str | None = None
    source: str | None = None
    doc: str | None = None
    outcome: str = "passed"
    known_gap: str | None = None
    identity: str | None = None
    examples: dict[str, Any] | None = None
    follows: str | None = None  # the law whose failure this one's follows from (`Law.follows`)
    checks: list[CheckRecord] = field(default_factory=list)

    def to_json(self, *, wire: bool = False) -> dict[str, Any]:
        out = {
            "nodeid": self.nodeid,
            "path": self.path,
            "law": self.law,
            "identity": self.identity,
            "source": self.source,
            "doc": self.doc,
            "outcome": self.outcome,
            "known_gap": self.known_gap,
            "checks": [c.wire() if wire else c.to_json() for c in self.checks],
        }
        if self.examples is not None:
            out["examples"] = dict(self.examples)
        if self.follows is not None:
            out["follows"] = self.follows
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LawRecord:
        return cls(
            nodeid=d["nodeid"],
            path=d["path"],
            law=d.get("law"),
            identity=d.get("identity"),
            source=d.get("source"),
            doc=d.get("doc"),
            outcome=d.get("outcome", "passed"),
            known_gap=d.get("known_gap"),
            examples=d.get("examples"),
            follows=d.get("follows"),
            checks=[CheckRecord.from_json(c) for c in d.get("checks", [])],
        )
