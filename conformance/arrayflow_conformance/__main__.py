"""Command-line entry point of ``arrayflow-conformance``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Run the conformance runner; returns the process exit code."""
    parser = argparse.ArgumentParser(
        prog="arrayflow-conformance",
        description="Check arrayflow backends, duck-typed tensors and custom Functions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("backends", help="list installed backends and whether each is usable here")
    args = parser.parse_args(argv)
    if args.command == "backends":
        import arrayflow as af

        for info in af.backends.available():
            status = "usable" if info.usable else f"unusable: {info.reason}"
            print(f"{info.name:10s} {'lazy' if info.lazy else 'eager':5s} {status}")
        return 0
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
