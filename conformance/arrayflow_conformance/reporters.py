"""Reports of a run: terminal summary, JSON, JUnit XML and a one-page HTML file.

Every reporter reads only a :class:`~arrayflow_conformance.results.Report`, so
all three suites share them.
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from .results import STATUSES, Report

__all__ = ["format_summary", "write_html", "write_json", "write_junit"]

_COLUMNS = [s for s in STATUSES]


def _columns(report: Report) -> list[str]:
    seen = report.counts()
    return [s for s in _COLUMNS if s in seen or s in ("passed", "failed")]


def format_summary(report: Report, *, max_failures: int = 30) -> str:
    """The summary printed at the end of a run.

    A table of checks per group and status, then each failure with its message,
    its smallest failing input and the command reproducing it, then one verdict
    line.

    Parameters
    ----------
    report : Report
        The run.
    max_failures : int
        Failures shown in full; the rest are counted.

    Returns
    -------
    str
    """
    cols = _columns(report)
    groups = report.by_group()
    width = max([len("group"), len("total"), *(len(g) for g in groups)])
    head = f"{'group':<{width}}  " + "  ".join(f"{c:>8}" for c in cols) + f"  {'total':>6}"
    lines = [f"arrayflow-conformance {report.suite} {report.target}", "", head,
             "-" * len(head)]
    for g, counts in groups.items():
        lines.append(f"{g:<{width}}  " + "  ".join(f"{counts.get(c, 0):>8}" for c in cols)
                     + f"  {sum(counts.values()):>6}")
    totals = report.counts()
    lines.append("-" * len(head))
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{totals.get(c, 0):>8}" for c in cols)
                 + f"  {len(report.results):>6}")
    bad = [r for r in report.results if not r.ok]
    for r in bad[:max_failures]:
        lines += ["", f"{r.status.upper()} {r.group}:{r.name}"]
        lines += ["    " + ln for ln in r.detail.splitlines()[:12]]
        if r.inputs:
            lines.append("    smallest failing input: "
                         + _clip(r.inputs, 600).replace("\n", "\n" + " " * 28))
        if r.repro:
            lines.append("    reproduce: " + r.repro)
    if len(bad) > max_failures:
        lines += ["", f"... and {len(bad) - max_failures} more failures (see --json/--html)"]
    secs = report.meta.get("duration_s")
    took = f" in {secs:.1f} s" if isinstance(secs, (int, float)) else ""
    verdict = ("OK" if report.ok else "FAILED") + f": {len(report.results)} checks{took}, " + \
        ", ".join(f"{n} {s}" for s, n in totals.items())
    lines += ["", verdict]
    return "\n".join(lines)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def write_json(report: Report, path) -> None:
    """Write ``report.to_dict()`` as JSON to ``path``."""
    Path(path).write_text(json.dumps(report.to_dict(), indent=1, default=str) + "\n")


def write_junit(report: Report, path) -> None:
    """Write a JUnit XML file: one ``testsuite``, one ``testcase`` per check.

    ``failed`` checks become ``<failure>``, ``error`` ones ``<error>``,
    ``skipped`` ones ``<skipped>``; the failing input and reproduction command
    are in the element's text. Tensor-like classifications count as passed.
    """
    counts = report.counts()
    suite = ET.Element("testsuite", {
        "name": f"arrayflow-conformance.{report.suite}.{report.target}",
        "tests": str(len(report.results)), "failures": str(counts.get("failed", 0)),
        "errors": str(counts.get("error", 0)), "skipped": str(counts.get("skipped", 0)),
        "time": f"{sum(r.duration_s for r in report.results):.3f}"})
    props = ET.SubElement(suite, "properties")
    for k, v in report.meta.items():
        ET.SubElement(props, "property", {"name": str(k), "value": json.dumps(v, default=str)})
    for r in report.results:
        case = ET.SubElement(suite, "testcase", {
            "classname": f"{report.suite}.{report.target}.{r.group}", "name": r.name,
            "time": f"{r.duration_s:.3f}"})
        text = "\n".join(x for x in (r.detail, r.inputs and f"input: {r.inputs}",
                                     r.repro and f"reproduce: {r.repro}") if x)
        if r.status in ("failed", "error"):
            tag = "failure" if r.status == "failed" else "error"
            el = ET.SubElement(case, tag, {"message": (r.detail.splitlines() or [""])[0][:500]})
            el.text = text
        elif r.status == "skipped":
            ET.SubElement(case, "skipped", {"message": r.detail[:500]})
        elif r.status != "passed":
            ET.SubElement(case, "system-out").text = f"{r.status}: {r.detail}"
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:75em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:right}td:first-child,th:first-child{text-align:left}
.ok{color:#176d2b}.bad{color:#b00020;font-weight:bold}pre{background:#f6f6f6;padding:.6em;
overflow-x:auto;white-space:pre-wrap}.failure{border-left:4px solid #b00020;padding-left:1em;
margin:1.5em 0}details{margin:1em 0}code{background:#f0f0f0}
"""


def write_html(report: Report, path) -> None:
    """Write a self-contained one-page HTML report (no external files or scripts).

    Sections: verdict and run metadata, the coverage table (checks per group and
    status), every failure with its message, smallest failing input and
    reproduction command, and the list of all checks (collapsed).
    """
    e = html.escape
    cols = _columns(report)
    verdict = "PASSED" if report.ok else "FAILED"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>arrayflow-conformance {e(report.suite)} {e(report.target)}</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>arrayflow-conformance {e(report.suite)} <code>{e(report.target)}</code>: "
           f"<span class=\"{'ok' if report.ok else 'bad'}\">{verdict}</span></h1>",
           "<h2>Run</h2><table>"]
    for k, v in report.meta.items():
        out.append(f"<tr><th>{e(str(k))}</th><td>{e(json.dumps(v, default=str))}</td></tr>")
    out.append("</table><h2>Coverage</h2><table><tr><th>group</th>"
               + "".join(f"<th>{e(c)}</th>" for c in cols) + "<th>total</th></tr>")
    for g, counts in report.by_group().items():
        cells = "".join(
            f"<td class=\"{'bad' if c in ('failed', 'error') and counts.get(c) else ''}\">"
            f"{counts.get(c, 0)}</td>" for c in cols)
        out.append(f"<tr><td>{e(g)}</td>{cells}<td>{sum(counts.values())}</td></tr>")
    totals = report.counts()
    out.append("<tr><th>total</th>" + "".join(f"<th>{totals.get(c, 0)}</th>" for c in cols)
               + f"<th>{len(report.results)}</th></tr></table>")
    bad = [r for r in report.results if not r.ok]
    out.append(f"<h2>Failures ({len(bad)})</h2>")
    if not bad:
        out.append("<p class=\"ok\">None.</p>")
    for r in bad:
        out.append(f"<div class=\"failure\"><h3>{e(r.status)}: <code>{e(r.group)}:"
                   f"{e(r.name)}</code></h3><pre>{e(r.detail)}</pre>")
        if r.inputs:
            out.append(f"<p>Smallest failing input:</p><pre>{e(r.inputs)}</pre>")
        if r.repro:
            out.append(f"<p>Reproduce:</p><pre>{e(r.repro)}</pre>")
        out.append("</div>")
    out.append(f"<details><summary>All checks ({len(report.results)})</summary><table>"
               "<tr><th>check</th><th>status</th><th>seconds</th><th>note</th></tr>")
    for r in report.results:
        note = e((r.detail.splitlines() or [""])[0][:200])
        out.append(f"<tr><td>{e(r.group)}:{e(r.name)}</td><td class=\""
                   f"{'ok' if r.ok else 'bad'}\">{e(r.status)}</td>"
                   f"<td>{r.duration_s:.3f}</td><td>{note}</td></tr>")
    out.append("</table></details></body></html>")
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")
