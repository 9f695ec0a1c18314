"""Autograd core against PyTorch: views and in-place writes, hooks, threads,
custom Functions, freeing saved tensors (issue 12, section 3).

Each program runs twice, once on ``torch`` and once on ``arrayflow`` (on numpy,
strict and dask), and the values, gradients and errors are compared.
"""

from __future__ import annotations

import gc
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest
from numpy.testing import assert_allclose

import arrayflow as af

torch = pytest.importorskip("torch")

VERSION_ERR = (r"one of the variables needed for gradient computation has been modified by an "
               r"inplace operation.*is at version \d+; expected version \d+ instead")


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return t.detach().numpy()


def _pair(values, requires_grad=False):
    """The same float32 data as a torch Tensor and an arrayflow Tensor (current backend)."""
    a = np.asarray(values, dtype=np.float32)
    return (torch.tensor(a, requires_grad=requires_grad),
            af.asarray(a, requires_grad=requires_grad))


# --- 1. views and in-place writes ---------------------------------------------------------

VIEWS = {
    "int_index": lambda y: y[0, :],
    "slice": lambda y: y[:, 1:3],
    "reshape": lambda y: y.reshape(3, 2),
    "view": lambda y: y.view(3, 2),
    "transpose": lambda y: y.T,
    "permute": lambda y: y.permute(1, 0),
    "unsqueeze": lambda y: y.unsqueeze(0),
    "view_of_view": lambda y: y.T[1, :],
}


# Copy-on-write (issue 16, docs/autograd.md): a write into a value an op saved does not
# raise (PyTorch's version error) but leaves the saved value as the op saw it, so the
# gradient is the program's as written -- PyTorch's gradient of the same program with the
# saved value cloned first. PyTorch itself raises on the uncloned program (checked).

@pytest.mark.parametrize("make_view", VIEWS.values(), ids=VIEWS.keys())
def test_write_through_a_view_of_a_saved_tensor_is_copy_on_write(backend, make_view):
    tx, x = _pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], True)
    ty = tx * 2
    tz = ty ** 2
    tv = make_view(ty)
    tv += 1
    with pytest.raises(RuntimeError, match=VERSION_ERR):
        (tz.sum() + (ty * 3).sum()).backward()  # PyTorch refuses the program
    tx.grad = None
    ty = tx * 2
    tz = ty.clone() ** 2  # the program as written: z saw y before the write
    tv = make_view(ty)
    tv += 1
    (tz.sum() + (ty * 3).sum()).backward()
    y = x * 2
    z = y ** 2
    v = make_view(y)
    v += 1
    (z.sum() + (y * 3).sum()).backward()
    np.testing.assert_allclose(_np(x.grad), _np(tx.grad))


@pytest.mark.parametrize("make_view", VIEWS.values(), ids=VIEWS.keys())
def test_write_into_the_base_of_a_saved_view_is_copy_on_write(backend, make_view):
    tx, x = _pair([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], True)
    ty = tx * 2
    tz = make_view(ty) ** 2
    ty += 1
    with pytest.raises(RuntimeError, match=VERSION_ERR):
        (tz.sum() + (ty * 3).sum()).backward()
    tx.grad = None
    ty = tx * 2
    tz = make_view(ty).clone() ** 2
    ty += 1
    (tz.sum() + (ty * 3).sum()).backward()
    y = x * 2
    z = make_view(y) ** 2  # pow saves the view
    y += 1
    (z.sum() + (y * 3).sum()).backward()
    np.testing.assert_allclose(_np(x.grad), _np(tx.grad))


def test_double_backward_through_a_modified_saved_value_raises_naming_the_node(backend):
    # With create_graph the backward uses the saved Tensor itself, which now holds the new
    # values: that stays PyTorch's error (never a silently wrong second derivative).
    x = af.asarray([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    z = y ** 2
    v = y[0]
    v += 1
    with pytest.raises(RuntimeError, match=r"PowBackward.*is at version 1; expected version 0"):
        af.autograd.grad(z.sum(), x, create_graph=True)


def test_a_write_never_changes_an_array_another_tensor_holds(backend):
    # flip returns a NumPy view, but PyTorch's flip copies: writing y must leave the
    # value pow saved from the flipped copy alone (old code: silent wrong gradient).
    tx, ax = _pair([1.0, 2.0, 3.0], True)
    ty = tx * 2
    tz = torch.flip(ty, (0,)) ** 2
    ty += 1
    tz.sum().backward()
    ay = ax * 2
    az = af.flip(ay, axis=0) ** 2
    ay += 1
    az.sum().backward()
    assert_allclose(_np(ax.grad), _np(tx.grad))
    assert_allclose(_np(az), _np(tz))


def _copyslices_setitem(x):
    b = x.clone()
    b[0:2] *= 3
    return b


def _copyslices_view(x):
    b = x.clone()
    v = b[0:2]
    v *= 3
    return b


def _base_write_then_view(x):
    b = x.clone()
    v = b[0:2]
    b *= 2
    return v


def _view_chain(x):
    b = x.reshape(2, 2) * 1
    v = b.T[0, :]
    v *= 5
    return b * b


def _siblings(x):
    b = x * 1
    v1 = b[0:2]
    v2 = b[1:3]
    v1 *= 3
    return v2 * v2


def _unsqueeze(x):
    b = x * 1
    u = b.unsqueeze(0)
    u *= 2
    return b


def _setitem_value_requires_grad(x):
    b = x.clone().detach() * 0  # does not require grad
    v = b[1:3]
    v += x[0:2] * x[2:4]  # the view gets the history, the base is rebased
    return b


def _inplace_with_tensor(x):
    b = x * 1
    b *= x  # mul saves the original b: PyTorch keeps it (no version error)
    return b


PROGRAMS = {
    "b[0:2] *= 3": _copyslices_setitem, "v = b[0:2]; v *= 3": _copyslices_view,
    "b *= 2 then view": _base_write_then_view, "b.T[0] *= 5": _view_chain,
    "sibling views": _siblings, "unsqueeze view": _unsqueeze,
    "view of base without grad": _setitem_value_requires_grad,
    "b *= x": _inplace_with_tensor,
}


@pytest.mark.parametrize("program", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_inplace_write_into_a_view_rebases_the_graph_as_torch(backend, program):
    tx, ax = _pair([1.0, 2.0, 3.0, 4.0], True)
    tout = program(tx)
    aout = program(ax)
    assert_allclose(_np(aout), _np(tout))
    w = np.arange(1, tout.numel() + 1, dtype=np.float32).reshape(tuple(tout.shape))
    (tout * torch.tensor(w)).sum().backward()
    (aout * af.asarray(w)).sum().backward()
    assert_allclose(_np(ax.grad), _np(tx.grad))


def test_view_values_follow_writes_on_every_backend(backend):
    out = []
    for x in _pair([[1.0, 2.0], [3.0, 4.0]]):
        v = x[0, :]
        r = x.reshape(4)
        x += 1
        t = x.T
        t[0, 1] = 10.0
        r[3] = -1.0
        out.append([_np(v), _np(x), _np(r), _np(t)])
    for a, t in zip(out[1], out[0]):
        assert_allclose(a, t)


def test_advanced_index_results_are_copies(backend):
    for x in _pair([1.0, 2.0, 3.0]):
        idx = torch.tensor([0, 1]) if isinstance(x, torch.Tensor) else af.asarray([0, 1])
        v = x[idx]
        v += 1
        assert_allclose(_np(x), [1.0, 2.0, 3.0])


def test_view_of_a_leaf_written_in_place_raises_as_torch(backend):
    msg = "a view of a leaf Variable that requires grad is being used in an in-place operation"
    for x in _pair([1.0, 2.0, 3.0], True):
        v = x[0:2]
        with pytest.raises(RuntimeError, match=msg):
            v *= 2
    for x in _pair([1.0, 2.0, 3.0], True):
        with af.no_grad(), torch.no_grad():
            v = x[0:2]
            v *= 2  # allowed under no_grad
        assert_allclose(_np(x), [2.0, 4.0, 3.0])


def test_view_created_under_no_grad_written_with_grad_raises_as_torch(backend):
    for x in _pair([1.0, 2.0, 3.0], True):
        y = x * 1
        with af.no_grad(), torch.no_grad():
            v = y[0:2]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is "
                                               "being modified inplace with grad mode enabled"):
            v *= 2


def test_write_into_an_expanded_view_raises_as_torch(backend):
    for x in _pair([1.0, 2.0, 3.0]):
        e = x.expand(2, 3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor "
                                               "refers to a single memory location"):
            e += 1


@pytest.mark.parametrize("method", ["fill_", "zero_", "uniform_", "normal_"])
def test_inplace_fill_on_a_leaf_that_requires_grad_raises_as_torch(backend, method):
    args = (2.0,) if method == "fill_" else ()
    for x in _pair([1.0, 2.0, 3.0], True):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation"):
            getattr(x, method)(*args)
        with af.no_grad(), torch.no_grad():
            getattr(x, method)(*args)  # allowed under no_grad


def test_fill_on_a_non_leaf_gives_a_zero_gradient_as_torch(backend):
    tx, ax = _pair([1.0, 2.0, 3.0], True)
    for x in (tx, ax):
        y = x * 2
        y.fill_(5.0)
        (y * x).sum().backward()
    assert_allclose(_np(ax.grad), _np(tx.grad))


# --- 2. hooks --------------------------------------------------------------------------------

def _shorter(g):
    return g[:2]


def _wider(g):
    return g.double()


def _scalar(g):
    return g.sum().reshape(1)


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non-leaf"])
@pytest.mark.parametrize("hook,what", [(_shorter, "size"), (_scalar, "size"), (_wider, "type")])
def test_hook_returning_a_wrong_gradient_raises_naming_it(backend, hook, what, leaf):
    for x in _pair([1.0, 2.0, 3.0], True):
        t = x if leaf else x * 1
        t.register_hook(hook)
        with pytest.raises(RuntimeError,
                           match=f"hook '{hook.__name__}' has changed the {what} of value"):
            (t * 2).sum().backward()
        assert x.grad is None  # nothing was broadcast or cast into .grad


def test_hook_returning_a_non_tensor_raises_type_error(backend):
    for x in _pair([1.0, 2.0, 3.0], True):
        x.register_hook(lambda g: 1.0)
        with pytest.raises(TypeError):
            (x * 2).sum().backward()


def test_hook_returning_another_backend_raises(backend):
    if backend == "numpy":
        pytest.skip("needs a second backend")
    x = af.asarray([1.0, 2.0], requires_grad=True)

    def moved(g):
        return g.to("numpy")
    x.register_hook(moved)
    with pytest.raises(RuntimeError, match="hook 'moved' has changed the backend of value"):
        (x * 2).sum().backward()


def test_retain_grad_sees_the_gradient_after_other_hooks_as_torch(backend):
    out = []
    for x in _pair([1.0, 2.0], True):
        y = x * 1
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        (y * 1).sum().backward()
        out.append((_np(y.grad), _np(x.grad)))
    assert_allclose(out[1][0], out[0][0])
    assert_allclose(out[1][1], out[0][1])


# --- 3. threads ------------------------------------------------------------------------------

def test_backward_from_threads_into_a_shared_leaf_loses_nothing(backend):
    w = af.zeros(4, dtype=af.float64, requires_grad=True)
    n_threads, n_calls = 8, 150
    errors = []

    def work(k):
        try:
            c = af.asarray([1.0, 2.0, 3.0, float(k)], dtype=af.float64).to(w.backend)
            for _ in range(n_calls):
                (w * c).sum().backward()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: a lost update shows up
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors
    expected = n_calls * np.array([n_threads, 2 * n_threads, 3 * n_threads,
                                   sum(range(n_threads))], dtype=np.float64)
    np.testing.assert_array_equal(w.grad.numpy(), expected)


# --- 4. mark_dirty ---------------------------------------------------------------------------

def _dirty_function(lib):
    class AddOne(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    return AddOne


def test_mark_dirty_on_a_leaf_that_requires_grad_raises_as_torch(backend):
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been "
                                               "used in an in-place operation"):
            _dirty_function(lib).apply(x)


def test_mark_dirty_on_a_non_leaf_works_as_torch(backend):
    grads = []
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        y = x * 3
        out = _dirty_function(lib).apply(y)
        assert out is y
        (out * out).sum().backward()
        grads.append(_np(x.grad))
    assert_allclose(grads[1], grads[0])


# --- 5. Function.apply ----------------------------------------------------------------------

def _kw_function(lib, log):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y=None, scale=2.0):
            return x * scale + y

        @staticmethod
        def backward(ctx, g):
            log.append(tuple(ctx.needs_input_grad))
            return (g * 2,) + (g,) * (len(ctx.needs_input_grad) - 1)
    return F


def test_apply_tensor_keyword_argument_gets_a_gradient_as_torch(backend):
    logs, grads = [], []
    for lib, (x, y) in zip((torch, af), zip(_pair([1.0, 2.0], True), _pair([3.0, 4.0], True))):
        log = []
        _kw_function(lib, log).apply(x, y=y).sum().backward()
        logs.append(log)
        grads.append((_np(x.grad), _np(y.grad)))
    assert logs[1] == logs[0] == [(True, True)]
    assert_allclose(grads[1][0], grads[0][0])
    assert_allclose(grads[1][1], grads[0][1])


def test_apply_keyword_arguments_bind_like_torch(backend):
    for lib, (x, y) in zip((torch, af), zip(_pair([1.0, 2.0], True), _pair([3.0, 4.0], True))):
        F = _kw_function(lib, [])
        with pytest.raises(TypeError, match=r"missing required argument: 'y' \(position 1\)"):
            F.apply(x, scale=3.0)
        with pytest.raises(TypeError, match="got multiple values for argument 'y'"):
            F.apply(x, y, y=y)
        with pytest.raises(TypeError, match="got an unexpected keyword argument 'q'"):
            F.apply(x, q=y)


def test_setup_context_receives_inputs_with_defaults_bound_as_torch(backend):
    seen = []
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        class G(lib.autograd.Function):
            @staticmethod
            def forward(x, k, scale=2.0):
                return x * scale

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append(tuple(i for i in inputs[1:]))
                ctx.scale = inputs[2]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale, None, None

        G.apply(x, 3)
        G.apply(x, 3, scale=4.0).sum().backward()
    assert seen[:2] == seen[2:] == [(3, 2.0), (3, 4.0)]


def _grad_function(lib, ret):
    class H(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return ret(g)
    return H


@pytest.mark.parametrize("ret,k,match", [
    (lambda g: (g, g), 3.0, "returned a gradient different than None at position 2, but the "
                            "corresponding forward input was not a Variable"),
    (lambda g: (g, g), None, "returned a gradient different than None at position 2"),
    (lambda g: g, 3.0, r"returned an incorrect number of gradients \(expected 2, got 1\)"),
    (lambda g: (g, None, g), 3.0, r"incorrect number of gradients \(expected 2, got 3\)"),
])
def test_wrong_gradients_from_backward_raise_as_torch(backend, ret, k, match):
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        with pytest.raises(RuntimeError, match=match):
            _grad_function(lib, ret).apply(x, k).sum().backward()


def test_gradient_for_a_tensor_not_requiring_grad_is_ignored_as_torch(backend):
    for lib, (x, k) in zip((torch, af), zip(_pair([1.0, 2.0], True), _pair([1.0, 1.0]))):
        _grad_function(lib, lambda g: (g, g)).apply(x, k).sum().backward()
        assert_allclose(_np(x.grad), [1.0, 1.0])


# --- 6. saved tensors are freed by backward -------------------------------------------------

def test_saved_tensors_are_freed_while_the_loss_is_kept(backend):
    w = af.ones((8, 8), requires_grad=True)
    losses, refs = [], []
    n = 200 if backend == "dask" else 1000  # (building Dask graphs is slow; same check)
    for _ in range(n):
        h = af.ones((4, 8)) @ w
        y = af.exp(h * 1e-3)  # exp saves its output
        loss = af.sin(y).sum()  # sin saves its input
        refs.append(weakref.ref(y._cell.array))  # the activation exp saved
        loss.backward()
        losses.append(loss)
    del h, y, loss
    gc.collect()
    assert sum(r() is not None for r in refs) == 0
    assert len(losses) == n and all(t.grad_fn is not None for t in losses)


def test_saved_arrays_are_freed_and_retain_graph_keeps_them(backend):
    w = af.ones((2, 2), requires_grad=True)
    y = af.exp(w * 1)
    arr = weakref.ref(y._cell.array)
    loss = af.sin(y).sum()
    del y
    loss.backward(retain_graph=True)
    gc.collect()
    assert arr() is not None  # kept for the second backward
    loss.backward()
    gc.collect()
    assert arr() is None
    assert_allclose(w.grad.numpy(), 2 * _torch_grad_of_sin_exp(), rtol=1e-6)


def _torch_grad_of_sin_exp():
    w = torch.ones((2, 2), requires_grad=True)
    torch.sin(torch.exp(w * 1)).sum().backward()
    return w.grad.numpy()


def test_second_backward_without_retain_graph_raises_as_torch(backend):
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        loss = lib.exp(x).sum()
        loss.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                               "time"):
            loss.backward()


def test_second_backward_through_nodes_that_saved_no_tensor_works_as_torch(backend):
    grads = []
    for x in _pair([1.0, 2.0], True):
        loss = (x + 1).reshape(2, 1).sum()  # (PyTorch refuses x * 2: it saves the 2)
        loss.backward()
        loss.backward()
        grads.append(_np(x.grad))
    assert_allclose(grads[1], grads[0])


# --- 7. more of the core ---------------------------------------------------------------------

def test_grad_outputs_are_cast_to_the_output_dtype_as_torch(backend):
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        g = lib.ones(2, dtype=lib.float64)
        (gx,) = lib.autograd.grad(x * 2, x, grad_outputs=g)
        assert str(gx.dtype).endswith("float32")


def test_unused_input_message_and_allow_unused_as_torch(backend):
    for lib, (x, w) in zip((torch, af), zip(_pair([1.0, 2.0], True), _pair([1.0], True))):
        with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears "
                                               "to not have been used in the graph"):
            lib.autograd.grad((x * 2).sum(), [x, w])
        gx, gw = lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
        assert gw is None
        assert_allclose(_np(gx), [2.0, 2.0])


def test_non_scalar_backward_needs_a_gradient_as_torch(backend):
    for x in _pair([1.0, 2.0], True):
        with pytest.raises(RuntimeError,
                           match="grad can be implicitly created only for scalar outputs"):
            (x * 2).backward()


def test_assigning_a_grad_of_the_wrong_shape_or_dtype_raises_as_torch(backend):
    for lib, x in zip((torch, af), _pair([1.0, 2.0, 3.0], True)):
        with pytest.raises(RuntimeError, match="attempting to assign a gradient of size"):
            x.grad = lib.ones(2)
        with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype"):
            x.grad = lib.ones(3, dtype=lib.float64)
        with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
            x.grad = 1.0
        assert x.grad is None  # a failed assignment changes nothing
        x.grad = lib.ones(3)
        (x * 2).sum().backward()  # accumulates into the assigned gradient, not broadcast
        assert_allclose(_np(x.grad), [3.0, 3.0, 3.0])


def test_assigning_a_grad_on_another_backend_raises(backend):
    if backend == "numpy":
        pytest.skip("needs a second backend")
    x = af.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient on backend"):
        x.grad = af.ones(3).to("numpy")


def test_mark_dirty_on_a_view_rebases_its_base_as_torch(backend):
    grads = []
    for lib, x in zip((torch, af), _pair([1.0, 2.0, 3.0, 4.0], True)):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, v):
                v *= 2
                ctx.mark_dirty(v)
                return v

            @staticmethod
            def backward(ctx, g):
                return g * 2

        b = x * 1
        v = b[0:2]
        assert Double.apply(v) is v
        w = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        (b * (torch.tensor(w) if lib is torch else af.asarray(w))).sum().backward()
        grads.append((_np(b), _np(x.grad)))
    assert_allclose(grads[1][0], grads[0][0])
    assert_allclose(grads[1][1], grads[0][1])


def test_views_of_tensor_subclasses_rebase_their_base_as_torch(backend):
    grads = []
    for lib, x in zip((torch, af), _pair([1.0, 2.0, 3.0, 4.0], True)):
        class Sub(lib.Tensor):
            pass

        b = (x * 1).as_subclass(Sub)
        v = b[0:2]
        v *= 3
        w = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        (b * (torch.tensor(w) if lib is torch else af.asarray(w))).sum().backward()
        grads.append(_np(x.grad))
    assert_allclose(grads[1], grads[0])


def test_retain_grad_follows_an_inplace_write_and_hooks_stay_as_torch(backend):
    out = []
    for lib, x in zip((torch, af), _pair([1.0, 2.0], True)):
        w = np.array([5.0, 7.0], dtype=np.float32)
        wt = torch.tensor(w) if lib is torch else af.asarray(w)
        y = x * 1
        y.retain_grad()
        seen = []
        y.register_hook(lambda g, seen=seen: seen.append(_np(g).copy()))
        y *= 3  # .grad is for the new y; the hook saw the old y's gradient
        (y * wt).sum().backward()
        b = x * 1
        b.retain_grad()
        v = b[0:1]
        v *= 2
        (b * wt).sum().backward()
        out.append((_np(y.grad), seen[0], _np(b.grad), _np(x.grad)))
    for a, t in zip(out[1], out[0]):
        assert_allclose(a, t)


def test_hook_modifying_its_gradient_in_place_changes_it_as_torch(backend):
    out = []
    for x in _pair([1.0, 2.0], True):
        def double(g):
            g *= 2

        x.register_hook(double)
        y = x * 1
        y.register_hook(double)
        (y * 3).sum().backward()
        out.append(_np(x.grad))
    assert_allclose(out[1], out[0])


def test_non_leaf_grad_accumulates_with_retain_grad_as_torch(backend):
    out = []
    for x in _pair([1.0, 2.0, 3.0], True):
        y = x * 2
        y.retain_grad()
        z = (y * y).sum()
        z.backward(retain_graph=True)
        z.backward()
        out.append((_np(y.grad), _np(x.grad)))
    assert_allclose(out[1][0], out[0][0])
    assert_allclose(out[1][1], out[0][1])


def test_function_gradient_is_summed_to_the_input_shape_and_cast_as_torch(backend):
    out = []
    for lib, (x, b) in zip((torch, af), zip(_pair(np.ones((2, 3)), True), _pair(np.ones(3), True))):
        class Add(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, b):
                return x + b

            @staticmethod
            def backward(ctx, g):
                return g.double(), g  # b's gradient still has x's shape: summed

        (Add.apply(x, b) * 3).sum().backward()
        out.append((_np(x.grad), _np(b.grad), str(x.grad.dtype)))
        with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 0 - got "
                                               r"\[3\] but expected shape compatible with \[2\]"):
            class Bad(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g.new_ones(3) if hasattr(g, "new_ones") else af.ones(3)
            Bad.apply(lib.ones(2, requires_grad=True)).sum().backward()
    assert_allclose(out[1][0], out[0][0])
    assert_allclose(out[1][1], out[0][1])
    assert out[1][2].endswith("float32") and out[0][2].endswith("float32")


@pytest.mark.parametrize("through_view", [False, True], ids=["tensor", "view"])
def test_inplace_on_an_input_a_function_returned_as_is_raises_as_torch(backend, through_view):
    for lib, x in zip((torch, af), _pair([1.0, 2.0, 3.0, 4.0], True)):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, t):
                return t

            @staticmethod
            def backward(ctx, g):
                return g * 10

        b = x * 1
        out = Id.apply(b[0:2] if through_view else b)
        with pytest.raises(RuntimeError, match="Output 0 of Id is a view and is being modified "
                                               "inplace"):
            out *= 3
        (out * 2).sum().backward()  # the failed write changed nothing
        assert_allclose(_np(x.grad), [20.0, 20.0] + ([0.0, 0.0] if through_view else [20.0] * 2))


def test_second_order_through_inplace_writes_into_views_as_torch(backend):
    out = []
    for lib, x in zip((torch, af), _pair([1.0, 2.0, 3.0, 4.0], True)):
        w = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        wt = torch.tensor(w) if lib is torch else af.asarray(w)  # a constant residual
        b = x * x
        b[0:2] *= x[0:2]
        v = b[2:4]
        v *= x[2:4]
        (g,) = lib.autograd.grad((b * wt).sum(), x, create_graph=True)
        (g * g).sum().backward()
        out.append((_np(g), _np(x.grad)))
    assert_allclose(out[1][0], out[0][0], rtol=1e-6)
    assert_allclose(out[1][1], out[0][1], rtol=1e-6)


def test_reading_grad_of_a_non_leaf_warns_as_torch(backend):
    for x in _pair([1.0, 2.0], True):
        y = x * 2
        with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a "
                                             "leaf Tensor is being accessed"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None and x.grad is None
        with pytest.raises(RuntimeError, match="you can only change requires_grad flags of "
                                               "leaf variables"):
            y.requires_grad_(False)


def test_base_and_is_view_as_torch(backend):
    out = []
    for x in _pair([[1.0, 2.0], [3.0, 4.0]], True):
        v = x[0:1, :]
        out.append((v._base is x, v._is_view(), x._base is None, x._is_view(),
                    v.T._base is x, x.detach()._is_view(), (x * 1).reshape(4)._is_view(),
                    (x * 1)._is_view()))
    assert out[1] == out[0]


def test_namespace_view_functions_and_reshape_copy(backend):
    x = af.asarray([1.0, 2.0, 3.0, 4.0])
    r = af.reshape(x, (2, 2), copy=True)  # the standard's copy=True: never a view
    r += 1
    assert_allclose(x.numpy(), [1.0, 2.0, 3.0, 4.0])
    r = af.reshape(x, (2, 2))
    r += 1
    s = af.squeeze(af.expand_dims(x, axis=0), axis=0)
    s *= 2
    m = af.moveaxis(af.reshape(x, (2, 2)), 0, 1)
    m[0, 1] = 100.0  # element (1, 0) of the reshaped x
    t = torch.tensor([1.0, 2.0, 3.0, 4.0])
    tr = t.reshape(2, 2)
    tr += 1
    ts = t.unsqueeze(0).squeeze(0)
    ts *= 2
    tm = torch.movedim(t.reshape(2, 2), 0, 1)
    tm[0, 1] = 100.0
    assert_allclose(x.numpy(), t.numpy())


def test_mark_non_differentiable_on_an_input_returned_as_is_matches_torch(backend):
    """``ctx.mark_non_differentiable(b)`` where ``b`` is an input returned unchanged: the
    output does not require grad (torch), although apply gives it a new Tensor."""
    def make(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.mark_non_differentiable(b)
                return a * 2, b

            @staticmethod
            def backward(ctx, g, gb):
                return g * 2, None
        return F

    seen = []
    for lib, (a, b) in zip((torch, af), zip(_pair([1.0, 2.0], True), _pair([3.0, 4.0], True))):
        x, y = make(lib).apply(a, b)
        seen.append((x.requires_grad, y.requires_grad, y.grad_fn is None))
        x.sum().backward()
        assert_allclose(_np(a.grad), [2.0, 2.0])
    assert seen[1] == seen[0] == (True, False, True)
