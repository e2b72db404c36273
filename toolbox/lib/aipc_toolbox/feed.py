"""The run-time input contract: what the project's application feeds a deployed model (aipc.toml
`run_inputs`, e.g. `infer:run_inputs`) against what the artifact takes.

Two kinds of mismatch look alike in a runtime's error message and are repaired in different
places, so the scripts name them before the runtime does:

- **preprocessing** (run stage, `run_artifact`): an input whose dtype differs from the artifact's
  (numpy's float64 default against a float32 model), whose shape holds the artifact's sizes in
  another order (channels-last frames for a channels-first model), or that is a non-contiguous
  view (a transpose or a strided slice the app did not copy). The repair is in the app's
  preprocessing: the warning names the project function that built the input, found by following
  the run_inputs call (aipc_toolbox/builders.py), else run_inputs itself:
      aipc-warning: input dtype: item 0 of infer.py run_inputs() feeds image as float64, the artifact takes float32
      aipc-warning: input layout: item 0 of infer.py run_inputs() feeds image as (1, 8, 8, 1), the artifact takes (1, 1, 8, 8): channels-last data for a channels-first model
      aipc-warning: input not contiguous: item 0 of app/pipeline.py Pipeline.to_batch() feeds image as a non-contiguous (1, 1, 8, 8) view (a transpose or slice): the runtime reads its buffer in memory order, so the model sees other values
- **fixed dims** (inspect stage, `inspect`): the app feeds sizes in a dim the artifact fixes
  (other batch sizes, other sequence lengths, other signal lengths). The repair is the export
  (dim 0 -> dynamic_batch, dim 1 -> dynamic_seq, any other -> aipc.toml dynamic_dims):
      aipc-warning: fixed dim: infer.py run_inputs() feeds frames with sizes 6, 11, 16, 23 in dim 1 (dynamic_seq), the artifact fixes it to 16
      aipc-warning: fixed dim: monitor.py windows() feeds signal with sizes 64, 128, 256 in dim 2 (dynamic_dims = ["signal:2:512"]), the artifact fixes it to 128

`expected` is a list of {"name", "shape" (ints; strings are symbolic dims), "dtype"} per artifact
input, dtypes as numpy names (float32, int64).
"""
from .emit import note, warn

ORT_TYPES = {"float": "float32", "double": "float64", "float16": "float16", "int64": "int64", "int32": "int32",
             "int8": "int8", "uint8": "uint8", "bool": "bool"}
DIM_OPTIONS = {0: "dynamic_batch", 1: "dynamic_seq"}


def dtype_name(x):
    """numpy-style dtype name of a numpy array, a torch tensor, or an ORT type string ("tensor(float)")."""
    if isinstance(x, str):
        inner = x[len("tensor("):-1] if x.startswith("tensor(") else x
        return ORT_TYPES.get(inner, inner)
    d = getattr(x, "dtype", x)
    name = getattr(d, "name", None) or str(d)
    return name.replace("torch.", "")


def shape_of(x):
    return tuple(int(d) for d in x.shape)


def _fmt(shape):
    return "(" + ", ".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def _fmt_spec(spec):
    """The artifact's input shape as the warnings print it: a dynamic dim by its name."""
    return _fmt(spec.get("shape") or [])


def where(project):
    """`infer.py run_inputs()`: where the run inputs come from, as the warnings name it."""
    file, function = project.spec_file("run_inputs")
    return f"{file} {function}()"


def _static(shape):
    return [d if isinstance(d, int) else None for d in shape]


def _permutation(got, want):
    """True when `got` holds the artifact's static sizes in another order, its dynamic dims (None:
    a dynamic batch, say) staying where they are: a (1, 64, 6) window for an artifact taking
    (batch, 6, 64)."""
    if len(got) != len(want):
        return False
    static = [i for i, w in enumerate(want) if w is not None]
    if not static or all(got[i] == want[i] for i in static):
        return False
    return sorted(got[i] for i in static) == sorted(want[i] for i in static)


def layout_axes(got, want):
    """The one order of axes that turns a `got`-shaped array into the artifact's `want` (static
    sizes matched, dynamic dims in place): a tuple for numpy's transpose, or None when no order
    or more than one gives it (equal sizes: then only the 4-D conventions below can tell)."""
    import itertools

    if not _permutation(got, want) or len(got) > 6:
        return None
    fixed = [i for i, w in enumerate(want) if w is None]
    found = [p for p in itertools.permutations(range(len(got)))
             if all(p[i] == i for i in fixed) and all(got[p[i]] == w for i, w in enumerate(want) if w is not None)]
    return found[0] if len(found) == 1 else None


def _layout_hint(got, want):
    def fits(order):  # `got` is `want` in this order of its axes (a dynamic dim fits any size)
        return all(want[i] is None or got[j] == want[i] for j, i in enumerate(order))

    if len(want) == 4 and fits((0, 2, 3, 1)):
        return "channels-last data for a channels-first model"
    if len(want) == 4 and fits((0, 3, 1, 2)):
        return "channels-first data for a channels-last model"
    axes = layout_axes(got, want)
    if axes is not None:
        return f"the same sizes in another order: transposing its axes to ({', '.join(map(str, axes))}) gives the artifact's"
    return "the same sizes in another order (a transposed layout)"


def _contiguous(x):
    if hasattr(x, "is_contiguous"):
        return bool(x.is_contiguous())
    flags = getattr(x, "flags", None)
    return True if flags is None else bool(flags["C_CONTIGUOUS"])


def check_preprocessing(origin, index, item, expected, builders=None, takes_strides=True):
    """Warn about dtype, layout and contiguity mismatches of one run input tuple; returns the
    problems found. `origin` names run_inputs; `builders` (one per input, from
    Project.traced_run_inputs) name the function of the app that built each input, which the
    warning names instead: the repair belongs there. `takes_strides`: the runtime copies a
    non-contiguous input in order (onnxruntime), so one is only a note; ExecuTorch reads the
    buffer as it lies in memory and gives wrong outputs without an error (measured: a transposed
    NHWC view into a conv, max error 0.59), so there it is a warning."""
    problems = []
    for k, (x, spec) in enumerate(zip(item, expected)):
        b = builders[k] if builders and k < len(builders) else None
        where_from = b.origin() if b else origin
        problems.extend(_check_one(where_from, index, x, spec, takes_strides))
    return problems


def _check_one(origin, index, x, spec, takes_strides):
    problems = []
    got_dtype, want_dtype = dtype_name(x), dtype_name(spec["dtype"]) if spec.get("dtype") else None
    if want_dtype and got_dtype != want_dtype:
        warn("input dtype", f"item {index} of {origin} feeds {spec['name']} as {got_dtype}, the artifact takes {want_dtype}")
        problems.append(("dtype", spec["name"], got_dtype, want_dtype))
    got, want = shape_of(x), _static(spec.get("shape") or [])
    if _permutation(got, want):
        warn("input layout", f"item {index} of {origin} feeds {spec['name']} as {_fmt(got)}, the artifact takes "
             f"{_fmt_spec(spec)}: {_layout_hint(got, want)}")
        problems.append(("layout", spec["name"], got, tuple(want)))
    else:
        problems.extend(check_contiguous(origin, index, x, spec["name"], takes_strides))
    return problems


def check_contiguous(origin, index, x, name, takes_strides):
    """Note (a runtime that copies strided inputs in order) or warn (one that reads the buffer in
    memory order) when item `index` of `origin` feeds input `name` as a non-contiguous view;
    returns the problems found (at most one)."""
    if _contiguous(x):
        return []
    got = shape_of(x)
    text = f"item {index} of {origin} feeds {name} as a non-contiguous {_fmt(got)} view (a transpose or slice)"
    if takes_strides:
        note(f"{text}: the runtime copies it in order first")
        return []
    warn("input not contiguous", f"{text}: the runtime reads its buffer in memory order, so the model sees other values")
    return [("contiguous", name, got, got)]


def _dims_option(name, dim, largest, existing):
    """`dynamic_dims = [...]`: the aipc.toml setting that makes this dim dynamic too (the entries
    already there kept), with room for twice the largest size fed."""
    import json

    entry = f"{name}:{dim}:{max(2 * largest, 2)}"
    kept = [e for e in existing if not e.startswith(f"{name}:{dim}:")]
    return "dynamic_dims = " + json.dumps(kept + [entry])


def fixed_dims(origin, items, expected, existing=(), limits=None):
    """Dims the artifact fixes while the run inputs feed other sizes there (layout mismatches, which
    `check_preprocessing` names, are left out). Warns once per (input, dim); returns the list of
    {"input", "dim", "fixed", "sizes"}. The setting named is dynamic_batch / dynamic_seq for dim
    0 / 1 while the sizes fed (and the example's) fit their upper bound (`limits`: {0: batch_max,
    1: seq_max}, 64 each by default), else a dynamic_dims entry with room for twice the largest:
    a dynamic dim whose bound is below the example's size cannot be exported."""
    limits = {0: 64, 1: 64, **(limits or {})}
    found = []
    for k, spec in enumerate(expected):
        want = _static(spec.get("shape") or [])
        sizes = {}
        for item in items:
            if k >= len(item):
                continue
            got = shape_of(item[k])
            if len(got) != len(want) or _permutation(got, want):
                continue
            for d, g in enumerate(got):
                sizes.setdefault(d, set()).add(g)
        for d, seen in sorted(sizes.items()):
            if want[d] is None or seen == {want[d]}:
                continue
            fits = d in DIM_OPTIONS and max(max(seen), want[d]) <= limits.get(d, 64)
            option = DIM_OPTIONS[d] if fits else _dims_option(spec["name"], d, max(max(seen), want[d]), existing)
            warn("fixed dim", f"{origin} feeds {spec['name']} with sizes {', '.join(map(str, sorted(seen)))} in dim {d} "
                 f"({option}), the artifact fixes it to {want[d]}")
            found.append({"input": spec["name"], "dim": d, "fixed": want[d], "sizes": sorted(seen)})
    return found
