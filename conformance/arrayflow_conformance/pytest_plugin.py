"""pytest plugin: arrayflow's backend conformance checks inside your own test suite.

One line in a test module of a backend package gives one test per check
(``test_conformance[mine-forward:exp-float32]``, ...)::

    from arrayflow_conformance.pytest_plugin import backend_conformance

    test_conformance = backend_conformance("mine")          # --quick's checks
    # test_conformance = backend_conformance("mine", quick=False)   # the full run

(this works whether or not the plugin is loaded, and uses Hypothesis seed 0).

Or no code at all, with one option (the plugin is auto-loaded through the
``pytest11`` entry point when arrayflow is installed)::

    pytest --pyargs arrayflow_conformance.pytest_suite --arrayflow-backend mine

``--arrayflow-backend`` may be repeated; ``--arrayflow-full`` runs the full
suite instead of the quick one; ``--arrayflow-seed N`` sets the Hypothesis seed.
A test written as ``test_x = backend_conformance()`` (no name) runs on the
backends given by ``--arrayflow-backend`` and is skipped when there is none.

A duck-type author gets one test per overridable function the same way::

    from arrayflow_conformance.pytest_plugin import tensor_like_conformance

    test_coverage = tensor_like_conformance("mypkg:MyTensor", factory="mypkg:make")

Loading the plugin costs nothing: it registers the options and imports neither
arrayflow nor an array library until a conformance test is collected.
"""

from __future__ import annotations

__all__ = ["backend_conformance", "tensor_like_conformance"]

_FIXTURE = "arrayflow_conformance_check"


def pytest_addoption(parser):
    """Register ``--arrayflow-backend``, ``--arrayflow-full`` and ``--arrayflow-seed``."""
    group = parser.getgroup("arrayflow-conformance")
    group.addoption("--arrayflow-backend", action="append", default=[], metavar="NAME",
                    help="run arrayflow's conformance checks on backend NAME (repeatable)")
    group.addoption("--arrayflow-full", action="store_true",
                    help="run the full conformance suite instead of the quick one")
    group.addoption("--arrayflow-seed", type=int, default=0, metavar="N",
                    help="Hypothesis seed of the conformance checks (default 0)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "arrayflow_backend(*names, quick=True): backends a conformance test runs on")


def _params(names, *, quick: bool, seed: int):
    import pytest

    from .backend import make_context, plan

    params = []
    for name in names:
        try:
            ctx = make_context(name, quick=quick, seed=seed)
        except Exception as e:  # unknown or unusable backend: one failing test that says so
            params.append(pytest.param((name, None, str(e)), id=f"{name}-unavailable"))
            continue
        params += [pytest.param((name, ctx, c), id=f"{name}-{c.id}") for c in plan(ctx)]
    return params


def pytest_generate_tests(metafunc):
    """Parametrize tests using the conformance fixture over backends and checks."""
    if _FIXTURE not in metafunc.fixturenames or getattr(metafunc.function, "_arrayflow_direct",
                                                          False):
        return
    marker = metafunc.definition.get_closest_marker("arrayflow_backend")
    names = list(marker.args) if marker and marker.args else []
    config = metafunc.config
    names = names or list(config.getoption("arrayflow_backend") or [])
    quick = (marker.kwargs.get("quick", True) if marker else True)
    quick = quick and not config.getoption("arrayflow_full")
    seed = config.getoption("arrayflow_seed")
    if not names:
        import pytest

        metafunc.parametrize(_FIXTURE, [pytest.param(
            None, id="no-backend",
            marks=pytest.mark.skip(reason="no backend given (pass --arrayflow-backend NAME)"))])
        return
    metafunc.parametrize(_FIXTURE, _params(names, quick=quick, seed=seed))


def _run(param) -> None:
    import pytest

    from .backend import run_check

    name, ctx, check = param
    if ctx is None:
        pytest.fail(f"arrayflow backend {name!r}: {check}", pytrace=False)
    result = run_check(check, ctx)
    if result.status == "skipped":
        pytest.skip(result.detail)
    if not result.ok:
        msg = [f"{result.status}: {check.id} on backend {name!r}", result.detail]
        if result.inputs:
            msg.append(f"smallest failing input: {result.inputs}")
        if result.repro:
            msg.append(f"reproduce: {result.repro}")
        pytest.fail("\n".join(msg), pytrace=False)


def backend_conformance(*names: str, quick: bool = True):
    """A pytest test function running every conformance check on backends ``names``.

    Parameters
    ----------
    *names : str
        Backend names (``arrayflow.backends`` entry points). None given: the
        backends of ``--arrayflow-backend``.
    quick : bool
        The checks of ``arrayflow-conformance backend NAME --quick`` (default) or of
        the full run (``--arrayflow-full`` also selects the full run).

    Returns
    -------
    function
        Assign it to a ``test_*`` name of a test module; pytest runs one test per
        backend and check, failing with the smallest failing input and a command
        reproducing it.
    """
    import pytest

    def test_arrayflow_conformance(arrayflow_conformance_check):
        _run(arrayflow_conformance_check)

    if names:  # parametrized here: works whether or not the plugin itself is loaded
        test_arrayflow_conformance._arrayflow_direct = True
        test_arrayflow_conformance = pytest.mark.parametrize(
            _FIXTURE, _params(names, quick=quick, seed=0))(test_arrayflow_conformance)
    return pytest.mark.arrayflow_backend(*names, quick=quick)(test_arrayflow_conformance)



def _tensor_like_params(target, factory, seed):
    import argparse

    import pytest

    from . import tensor_like
    from .progress import NullProgress

    args = argparse.Namespace(target=target, factory=factory, fail_under=None, seed=seed)
    report = tensor_like.run(args, NullProgress())
    return [pytest.param(r, id=f"{r.group}:{r.name}") for r in report.results]


def tensor_like_conformance(target: str, *, factory: str | None = None,
                            strict: bool = False, seed: int = 0):
    """A pytest test function checking a duck-typed class against every overridable function.

    Parameters
    ----------
    target : str
        ``"MODULE:CLASS"``, the class defining ``__arrayflow_function__``.
    factory : str, optional
        ``"MODULE:FUNC"`` returning an instance (called with a plain Tensor), as
        ``arrayflow-conformance tensor-like --factory``.
    strict : bool
        False (default): functions the class does not implement (``NotImplemented``)
        are skipped tests, so the suite passes while coverage grows; True: they fail.
    seed : int
        Seed of the sample inputs.

    Returns
    -------
    function
        Assign it to a ``test_*`` name: one test per function (``arrayflow:exp``,
        ``Tensor:Tensor.__add__``, ...). ``handled`` passes; ``raised``,
        ``dropped_kwargs`` and ``lost_type`` fail with the runner's detail; a class
        that cannot be loaded or instantiated fails one ``setup`` test.
    """
    import pytest

    @pytest.mark.parametrize("arrayflow_tensor_like_result",
                             _tensor_like_params(target, factory, seed))
    def test_arrayflow_tensor_like(arrayflow_tensor_like_result):
        r = arrayflow_tensor_like_result
        if r.status == "skipped" or (r.status == "not_implemented" and not strict):
            pytest.skip(f"{r.name}: {r.status}: {r.detail}")
        if r.status not in ("handled", "passed"):
            msg = [f"{r.status}: {r.name} with {target}", r.detail]
            if r.inputs:
                msg.append(f"inputs: {r.inputs}")
            if r.repro:
                msg.append(f"reproduce: {r.repro}")
            pytest.fail("\n".join(msg), pytrace=False)

    return test_arrayflow_tensor_like
