"""The documentation's op list, generated from the op table (``arrayflow.ops.OPS``).

``mkdocs.yml`` loads this file as a hook: on ``docs/reference/ops.md`` it replaces
:data:`MARKER` with :func:`render`'s tables, so the published list is the registry's at
build time (``mkdocs build --strict`` in ``.ci/run``). Run it directly to print the list::

    .venv/bin/python tools/op_table.py
"""

from __future__ import annotations

MARKER = "<!-- op-table -->"


def _yes(flag: bool) -> str:
    return "yes" if flag else ""


def render() -> str:
    """Markdown tables of every op, one table per section of the standard.

    Returns
    -------
    str
        Per op: name, aliases, input dtypes, whether it is differentiable (has a VJP), whether
        its gradient follows PyTorch's complex convention, and PyTorch's function.
    """
    from arrayflow.ops import OPS
    from arrayflow.ops._registry import DTYPE_CATEGORIES, SECTIONS

    out = []
    for key, title in SECTIONS.items():
        ops = sorted((o for o in OPS.values() if o.section == key), key=lambda o: o.name)
        if not ops:
            continue
        out += [f"## {title}", "", f"{len(ops)} functions.", "",
                "| function | PyTorch | other names | input dtypes | gradient | complex gradient |",
                "|---|---|---|---|---|---|"]
        for o in ops:
            torch = f"`torch.{o.torch_name}`" if o.torch_name else "none"
            aliases = ", ".join(f"`{a}`" for a in o.aliases)
            dtypes = DTYPE_CATEGORIES[o.dtypes] if o.dtypes else "no array input"
            grad = "VJP" if o.vjp is not None else ("" if not o.differentiable else "none")
            out.append(f"| `{o.name}` | {torch} | {aliases} | {dtypes} | {grad} | "
                       f"{_yes(o.complex_ok)} |")
        out.append("")
    return "\n".join(out)


def on_page_markdown(markdown: str, page, config, files) -> str:  # mkdocs hook
    """Fill the op list into the page that holds :data:`MARKER`."""
    if MARKER in markdown:
        return markdown.replace(MARKER, render())
    return markdown


if __name__ == "__main__":
    print(render())
