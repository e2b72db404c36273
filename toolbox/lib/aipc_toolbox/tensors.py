"""Batching helpers shared by the target scripts: cut a set of batched inputs into runtime-sized
chunks (padding the last one when the artifact has a fixed batch), and run the eager model."""
import numpy as np


def chunks(inputs, size, fixed):
    """Yield (tuple of numpy arrays, rows used) over the first dimension of `inputs`.

    fixed=True pads the last chunk to `size` rows by repeating its last row (a static-batch
    artifact accepts nothing else); the padding rows are dropped by the caller via `rows used`.
    """
    arrays = [np.ascontiguousarray(np.asarray(t)) for t in inputs]
    n = arrays[0].shape[0]
    for start in range(0, n, size):
        part = [a[start:start + size] for a in arrays]
        used = part[0].shape[0]
        if fixed and used < size:
            part = [np.concatenate([p, np.repeat(p[-1:], size - used, axis=0)]) for p in part]
        yield tuple(part), used


def eager_outputs(model, inputs, size=64, fixed=False):
    """Run the eager model over batched inputs in the chunks the artifact is run in (`size` rows,
    the last one padded when `fixed`, as `chunks` makes them); returns a list (one per model
    output) of arrays.

    The same chunks matter: a model whose answer for one sample depends on the rest of its batch
    (a batch-wide early exit, `.all()` over the batch; batch statistics) gives other numbers at
    64 rows than a static batch-1 artifact gives one row at a time, and the comparison would
    blame the artifact for the reference's batching."""
    import torch

    outs = None
    with torch.no_grad():
        for part, used in chunks([t.numpy() if hasattr(t, "numpy") else t for t in inputs], size, fixed):
            y = model(*[torch.from_numpy(p) for p in part])
            ys = [y] if isinstance(y, torch.Tensor) else list(y)
            ys = [v.detach().numpy()[:used] for v in ys]
            outs = [[v] for v in ys] if outs is None else [o + [v] for o, v in zip(outs, ys)]
    return [np.concatenate(o) for o in outs]


def take(inputs, n):
    """The first n rows of every input tensor (n=None: all)."""
    return tuple(t[:n] for t in inputs) if n else tuple(inputs)


def rebatch(inputs, batch):
    """Repeat/trim the rows of example inputs so their batch is exactly `batch`."""
    import torch

    out = []
    for t in inputs:
        reps = -(-batch // t.shape[0])
        out.append(torch.cat([t] * reps)[:batch] if reps > 1 else t[:batch])
    return tuple(out)


# The largest batch an example is repeated to for tracing: the rows are real tensors, and a
# batch_max in the thousands times an image would take gigabytes. ExecuTorch's run-time capacity
# was measured up to 64 (a program traced at 16 or more took all 64 rows); above 64 it is not.
TRACE_BATCH_MAX = 64


def for_dynamic_batch(inputs, batch, trace_batch=2):
    """The example inputs as torch.export must see them for a dynamic batch (`batch` true): a
    batch under `trace_batch` is repeated (or trimmed) to it, with a note; otherwise unchanged.
    torch.export specialises a size-1 dim to a constant, and the rows' values do not matter to
    the trace (it runs on fake tensors). A project's example is often one sample, the unit its
    app works in; asking its author for a batch of two only to trace it was a refusal the 270M
    model could not get past. ExecuTorch passes its batch_max: a program traced at a batch of
    15 or less took at most 15 rows at run time whatever the Dim's max (seen on a 1-D CNN with
    batch_max 64; traced at 16 or more it took 64)."""
    inputs = tuple(inputs)
    if not batch or not inputs or any(t.dim() == 0 or t.shape[0] == 0 for t in inputs) \
            or all(t.shape[0] >= trace_batch for t in inputs):
        return inputs
    from .emit import note

    note(f"the example inputs have batch {min(int(t.shape[0]) for t in inputs)}: traced at batch {trace_batch} "
         "(their rows repeated) so that the batch dim stays dynamic up to its max")
    return rebatch(inputs, trace_batch)


def dynamic_shapes(inputs, batch=False, seq=False, batch_max=64, seq_max=64, extra=(), auto_extra=False):
    """torch.export `dynamic_shapes` for the example inputs, or None when nothing is dynamic.

    batch: dim 0 of every input is one shared Dim "batch" (1..batch_max); seq: dim 1 of every
    input of rank >= 2 is one shared Dim "seq" (1..seq_max), the batch-first sequence layout
    (tokens (B, T), frames (B, T, F), a mask (B, T)). extra: (input index, dim, max) for any other
    dim (aipc.toml dynamic_dims); entries with the same dim and max share one Dim. A dynamic dim
    needs an example size >= 2: torch.export specialises sizes 0 and 1 to constants.
    auto_extra: the extra dims as Dim.AUTO up to their max instead (torch derives the range the
    model's code allows; see export_program).
    """
    import torch

    from .emit import ToolError

    if not (batch or seq or extra):
        return None
    for i, t in enumerate(inputs):
        if batch and t.shape[0] < 2:
            raise ToolError(f"example input {i} has batch {t.shape[0]} with a dynamic batch: give example_inputs a batch "
                            ">= 2 (torch.export specialises a size-1 dimension to a constant)")
        if seq and t.dim() >= 2 and t.shape[1] < 2:
            raise ToolError(f"example input {i} has sequence length {t.shape[1]} (dim 1) with a dynamic sequence: give "
                            "example_inputs a length >= 2 (torch.export specialises a size-1 dimension to a constant)")
    per_input = [{} for _ in inputs]
    batch_dim = torch.export.Dim("batch", min=1, max=batch_max) if batch else None
    seq_dim = torch.export.Dim("seq", min=1, max=seq_max) if seq else None
    for t, dims in zip(inputs, per_input):
        if batch_dim is not None:
            dims[0] = batch_dim
        if seq_dim is not None and t.dim() >= 2:
            dims[1] = seq_dim
    shared = {}
    for i, d, high in extra:
        t = inputs[i]
        if d >= t.dim():
            raise ToolError(f"dynamic_dims: example input {i} has {t.dim()} dims, no dim {d}")
        if t.shape[d] < 2 or t.shape[d] > high:
            raise ToolError(f"dynamic_dims: example input {i} has size {t.shape[d]} in dim {d}: give example_inputs a size "
                            f"between 2 and {high} there (torch.export specialises a size-1 dimension to a constant)")
        key = (d, high)
        if auto_extra:
            per_input[i][d] = torch.export.Dim.AUTO(max=high)
            continue
        shared.setdefault(key, torch.export.Dim(f"dim{d}_{high}", min=1, max=high))
        per_input[i][d] = shared[key]
    return tuple(dims or None for dims in per_input)


def export_program(model, inputs, batch=False, seq=False, batch_max=64, seq_max=64, extra=()):
    """torch.export.export of `model` with the dynamic dims above; returns (program, the
    dynamic_shapes it was exported with).

    A dim of aipc.toml dynamic_dims is declared 1..max, but a model's code often needs more of
    it: a conv stack that pools by 4 needs at least 4 frames, and one whose pooled size must not
    be 1 needs 8. torch.export then refuses the declared range ("Constraints violated ... Not all
    values of dim2_256 ... satisfy the generated guard ..."), and its suggested fix may itself be
    short of the guards. So on that refusal the dims are exported again as Dim.AUTO up to their
    max: torch keeps each dynamic over the range the code allows, which the note prints; the
    later checks run what the app feeds on it. When the code fixes such a dim to one size, the
    first refusal is raised (it says why)."""
    import torch
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    from .emit import note

    shapes = dynamic_shapes(inputs, batch, seq, batch_max, seq_max, extra)
    try:
        return torch.export.export(model, inputs, dynamic_shapes=shapes), shapes
    except Exception as exc:  # noqa: BLE001 - only a range refusal on dynamic_dims is retried
        if not extra or "Constraints violated" not in str(exc) or "specialized it to be a constant" in str(exc):
            raise  # not a range refusal: torch's message says what the code does with the dim
        refusal = exc
    shapes = dynamic_shapes(inputs, batch, seq, batch_max, seq_max, extra, auto_extra=True)
    try:
        ep = torch.export.export(model, inputs, dynamic_shapes=shapes)
    except Exception:  # noqa: BLE001 - the first refusal names the dims and the guards: raise that one
        raise refusal from None
    names = list(getattr(ep.graph_signature, "user_inputs", ()) or ())
    placeholders = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    ranges = []
    for i, d, high in extra:
        size = placeholders[names[i]].meta["val"].shape[d] if i < len(names) and names[i] in placeholders else None
        if size is None or is_concrete_int(size):  # the code fixed the dim: the strict export's message says why
            raise refusal
        bounds = ep.range_constraints.get(size.node.expr)
        low, up = (int(bounds.lower), int(bounds.upper)) if bounds is not None else (1, high)
        ranges.append(f"input {names[i]} dim {d}: {low}..{up}")
    guards = [line.strip() for line in str(refusal).splitlines() if line.strip().startswith("- Not all values")]
    note("dynamic_dims: the declared range 1..max does not fit the model's code (" + "; ".join(guards[:3])
         + f"); exported over the range it allows: {', '.join(ranges)}")
    return ep, shapes
