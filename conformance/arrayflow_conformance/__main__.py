"""Command-line entry point of ``arrayflow-conformance`` (also ``python -m arrayflow_conformance``).

Subcommands::

    arrayflow-conformance backends
    arrayflow-conformance backend NAME [--quick] [--dtypes D ...] [--only ID ...]
    arrayflow-conformance tensor-like MODULE:CLASS [--factory MODULE:FUNC] [--fail-under PCT]
    arrayflow-conformance function MODULE:CLASS --inputs MODULE:FUNC
    arrayflow-conformance function mylib::name --import MODULE --inputs MODULE:FUNC

The checking subcommands share ``--seed N``, ``--json PATH``, ``--junit-xml PATH``,
``--html PATH`` and ``--no-progress``. Exit status: 0 when every check passed,
1 when one failed, 2 for bad arguments or a target that cannot run here.
"""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["build_parser", "main"]

_SUITES = {"backend": "backend", "tensor-like": "tensor_like", "function": "function"}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``arrayflow-conformance`` (all subcommands)."""
    from .backend import ALL_DTYPES

    parser = argparse.ArgumentParser(
        prog="arrayflow-conformance",
        description="Check arrayflow backends, duck-typed tensors and custom Functions.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("backends", help="list installed backends and whether each is usable here")

    common = argparse.ArgumentParser(add_help=False)
    out = common.add_argument_group("run and output options")
    out.add_argument("--seed", type=int, default=0, metavar="N",
                     help="Hypothesis seed: the same seed draws the same inputs (default 0)")
    out.add_argument("--json", metavar="PATH", help="write every result as JSON")
    out.add_argument("--junit-xml", metavar="PATH", help="write a JUnit XML file for CI")
    out.add_argument("--html", metavar="PATH",
                     help="write a one-page self-contained HTML report")
    out.add_argument("--no-progress", action="store_true", help="do not draw a progress bar")

    b = sub.add_parser(
        "backend", parents=[common], help="check a backend plug-in against NumPy",
        description="Check a backend plug-in (built in or from an 'arrayflow.backends' entry "
                    "point): every function against NumPy on generated inputs, type "
                    "promotion, devices, DLPack, laziness, gradcheck/gradgradcheck and the "
                    "VJPs against NumPy's.")
    b.add_argument("name", metavar="NAME", help="backend name (see 'arrayflow-conformance "
                                               "backends')")
    b.add_argument("--quick", action="store_true",
                   help="one case per function and fewer generated examples (CI)")
    b.add_argument("--dtypes", nargs="+", metavar="DTYPE", choices=ALL_DTYPES,
                   help="check only cases whose arrays have these dtypes "
                        "(gradient checks need float64)")
    b.add_argument("--only", nargs="+", metavar="ID",
                   help="run only checks whose id (GROUP:NAME, as printed on failure) "
                        "matches: a glob pattern or a substring")
    b.add_argument("--list", action="store_true", help="list the check ids and exit")

    t = sub.add_parser("tensor-like", parents=[common],
                       help="check a duck-typed tensor class's __arrayflow_function__")
    t.add_argument("target", metavar="MODULE:CLASS", help="the duck-typed tensor class")
    t.add_argument("--factory", metavar="MODULE:FUNC",
                   help="makes an instance from a Tensor (default: CLASS(tensor))")
    t.add_argument("--fail-under", type=float, metavar="PCT", default=None,
                   help="fail when fewer than PCT %% of the functions are handled")

    f = sub.add_parser("function", parents=[common],
                       help="check a custom autograd Function or a custom op",
                       description="Check a custom autograd Function (MODULE:CLASS) or a "
                                   "custom op of arrayflow.library (namespace::name, checked "
                                   "with af.library.opcheck on every backend).")
    f.add_argument("target", metavar="MODULE:CLASS|NAMESPACE::NAME",
                   help="the Function subclass, or the custom op's name")
    f.add_argument("--inputs", metavar="MODULE:FUNC", required=True,
                   help="returns example inputs for the Function or op")
    f.add_argument("--import", dest="import_module", metavar="MODULE",
                   help="import MODULE first (the module that registers the custom op)")
    return parser


def _list_backends() -> int:
    import arrayflow as af

    for info in af.backends.available():
        status = "usable" if info.usable else f"unusable: {info.reason}"
        print(f"{info.name:10s} {'lazy' if info.lazy else 'eager':5s} {status}")
    return 0


def _error(msg: str) -> int:
    print(f"arrayflow-conformance: error: {msg}", file=sys.stderr)
    return 2


def _check_output_paths(args) -> int | None:
    """Check that every report path (``--json``, ``--junit-xml``, ``--html``) can be
    written, before anything runs; an exit status (2, one line) on error, else None.

    An existing file is opened for appending (its contents are not touched); a new one
    is created and removed again.
    """
    import os

    seen: dict = {}
    for flag, path in (("--json", args.json), ("--junit-xml", args.junit_xml),
                       ("--html", args.html)):
        if not path:
            continue
        full = os.path.abspath(path)
        if full in seen:
            return _error(f"argument {flag}: {path!r} is also the {seen[full]} report")
        seen[full] = flag
        if os.path.isdir(full):
            return _error(f"argument {flag}: {path!r} is a directory, expected a file path")
        parent = os.path.dirname(full)
        if not os.path.isdir(parent):
            return _error(f"argument {flag}: cannot write {path!r}: directory {parent!r} "
                          f"does not exist")
        try:
            if os.path.exists(full):
                with open(full, "ab"):
                    pass
            else:
                with open(full, "xb"):
                    pass
                os.unlink(full)
        except OSError as e:
            return _error(f"argument {flag}: cannot write {path!r}: "
                          f"{e.strerror or type(e).__name__}")
    return None


def _suite_module(command: str):
    """The suite module of ``command``, or None if this installation lacks it."""
    name = f"{__package__ or 'arrayflow_conformance'}.{_SUITES[command]}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise
        return None


def _backend_preflight(args) -> int | None:
    """Validate ``backend`` arguments; an exit status on error, else None."""
    import importlib.util

    import arrayflow as af

    from .backend import make_context, plan

    if importlib.util.find_spec("hypothesis") is None:
        return _error("the backend suite draws its inputs with Hypothesis, which is not "
                      "installed: pip install 'arrayflow[conformance]'")

    try:
        ctx = make_context(args.name, quick=args.quick, seed=args.seed, dtypes=args.dtypes)
    except ValueError as e:
        return _error(str(e))
    except af.backends.BackendUnavailableError as e:
        return _error(str(e))
    if args.list or args.only:
        checks = plan(ctx, args.only)
        if args.only and not checks:
            return _error(f"argument --only: no check id matches {' '.join(args.only)} "
                          f"(see --list)")
        if args.list:
            for c in checks:
                print(c.id)
            return 0
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the conformance runner.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 when every check passed, 1 when a check failed, 2 for bad
        arguments or a target that cannot run here.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "backends":
        return _list_backends()
    status = _check_output_paths(args)  # before anything runs: never lose a long run
    if status is not None:
        return status
    if args.command == "backend":
        status = _backend_preflight(args)
        if status is not None:
            return status
    module = _suite_module(args.command)
    if module is None:
        return _error(f"the '{args.command}' suite is not available in this installation")

    from .progress import NullProgress, Progress
    from .reporters import format_summary, write_html, write_json, write_junit

    progress = NullProgress() if args.no_progress else Progress()
    try:
        report = module.run(args, progress)
    except (ValueError, TypeError, ImportError, AttributeError) as e:
        if args.command == "backend":
            raise
        return _error(str(e))  # a MODULE:CLASS that cannot be loaded or used
    print(format_summary(report))
    suite_summary = getattr(module, "format_summary", None)
    if suite_summary is not None:  # e.g. tensor-like: coverage by namespace, implement next
        print(suite_summary(report))
    for path, write in ((args.json, write_json), (args.junit_xml, write_junit),
                        (args.html, write_html)):
        if path:
            write(report, path)
    setup = [r for r in report.results if r.group == "setup" and not r.ok]
    if setup:  # the target could not be loaded or instantiated: bad input, not a failed check
        return _error("; ".join(f"{r.name}: {r.detail}" for r in setup))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
