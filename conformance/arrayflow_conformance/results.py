"""The result model every conformance suite produces and every report reads.

A suite (``backend``, ``tensor-like``, ``function``) yields :class:`CheckResult`
objects; the reporters (terminal summary, JSON, JUnit XML, HTML) only read
:class:`Report`. Keeping this module free of checking logic lets the suites and
the reporters change independently.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = ["STATUSES", "CheckResult", "Report"]

#: Every status a check can end in. ``passed`` and ``skipped`` do not fail a run;
#: the tensor-like statuses below ``skipped`` describe how a duck type handled a function.
STATUSES = (
    "passed",          # the check held
    "failed",          # the check ran and found a wrong result
    "error",           # the check itself raised unexpectedly
    "skipped",         # not applicable here (reason in ``detail``)
    # tensor-like classification (a run fails on these only under --fail-under):
    "handled",         # the duck type's __arrayflow_function__ handled the call
    "not_implemented",  # it returned NotImplemented (TypeError reached the caller)
    "raised",          # it raised (the error is in ``detail``)
    "dropped_kwargs",  # it handled the call but ignored keyword arguments it was given
    "lost_type",       # it handled the call but the result is not of the wrapper type
)


@dataclass
class CheckResult:
    """One check's outcome.

    Attributes
    ----------
    suite : str
        ``"backend"``, ``"tensor-like"`` or ``"function"``.
    group : str
        What the coverage table groups by: the namespace (``"arrayflow"``,
        ``"arrayflow.linalg"``, ``"arrayflow.nn.functional"``, ``"Tensor"``) or a
        check family (``"forward"``, ``"gradcheck"``, ``"promotion"``, ``"dlpack"``).
    name : str
        The function or check (``"linalg.solve"``, ``"gradgradcheck[matmul-2d]"``).
    status : str
        One of :data:`STATUSES`.
    detail : str
        Failure message, error text or skip reason ("" when passed).
    inputs : str
        A readable description of the (smallest) failing input, "" if none.
    repro : str
        A shell command that reproduces this one check, "" if none.
    duration_s : float
        Wall time of the check in seconds.
    """

    suite: str
    group: str
    name: str
    status: str
    detail: str = ""
    inputs: str = ""
    repro: str = ""
    duration_s: float = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(
                f"CheckResult: argument 'status' must be one of {STATUSES}, got {self.status!r}"
            )

    @property
    def ok(self) -> bool:
        """False for ``failed`` and ``error``; everything else does not fail a run."""
        return self.status not in ("failed", "error")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Report:
    """All results of one runner invocation plus what was checked."""

    suite: str
    target: str                      # backend name, MODULE:CLASS, ...
    results: list[CheckResult] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)  # seed, quick, versions, times

    def add(self, result: CheckResult) -> None:
        self.results.append(result)

    def counts(self) -> dict[str, int]:
        """Number of results per status (only statuses that occur)."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.status] = out.get(r.status, 0) + 1
        return out

    def by_group(self) -> dict[str, dict[str, int]]:
        """``{group: {status: count}}``, groups in first-seen order."""
        out: dict[str, dict[str, int]] = {}
        for r in self.results:
            g = out.setdefault(r.group, {})
            g[r.status] = g.get(r.status, 0) + 1
        return out

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {"suite": self.suite, "target": self.target, "ok": self.ok,
                "counts": self.counts(), "meta": self.meta,
                "results": [r.to_dict() for r in self.results]}
