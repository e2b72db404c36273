"""The project a toolbox script deploys: the `[project]` table of `aipc.toml` in the cwd.

```toml
[project]
model = "model:load_model"                  # module:function -> nn.Module, weights loaded
example_inputs = "data:example_inputs"      # -> tuple of tensors
eval_data = "data:eval_set"                 # -> (tuple of batched inputs, labels)
calibration_data = "data:calibration_set"   # -> list of input tuples
calibration_prep = "data:normalise"        # applied to each calibration input array (optional)
# calibration_prep_outside = "data:normalise"  # instead: only to the inputs outside the eval inputs' range
input_names = ["image"]
output_names = ["logits"]
run_inputs = "infer:run_inputs"            # -> list of input tuples as the app feeds them (optional)
dynamic_batch = true
dynamic_seq = false                         # dim 1 of every input of rank >= 2 dynamic (sequences)
opset = 18
quantize = "int8"                           # or "none": the artifact the project ships
latency_budget_ms = 5.0
rewrite_ops = ["aten.median.dim"]           # ops every export rewrites at graph level (rewrites.py)
```

Modules are imported from the project dir (the cwd), which is put first on sys.path. Every
problem is reported with the key, its line in aipc.toml, and what to do.
"""
import difflib
import importlib
import os
import re
import sys
import tomllib

from .emit import ToolError

# The keys, their types, defaults and accepted values: project_keys.toml next to this file, the
# one definition aipc itself also reads (set_project_option, `aipc run`'s early validation).
_PYTHON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "string_list": list}


def _load_schema():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "project_keys.toml")
    with open(path, "rb") as f:
        return tomllib.load(f)["keys"]


SCHEMA = _load_schema()
# key -> (accepted Python types, default, short description)
KEYS = {k: (_PYTHON_TYPES[v["type"]], v.get("default"), v["doc"]) for k, v in SCHEMA.items()}
REQUIRED = tuple(k for k, v in SCHEMA.items() if v.get("required"))


def _line_of(text, key):
    """1-based line of `key = ...` inside the [project] table of aipc.toml text, or None."""
    in_project = False
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith("["):
            in_project = s.split("#")[0].strip() == "[project]"
            continue
        if in_project and re.match(rf"{re.escape(key)}\s*=", s):
            return n
    return None


class Project:
    """The loaded `[project]` table plus accessors that import and call the project's code."""

    def __init__(self, root=None, path="aipc.toml"):
        self.root = os.path.abspath(root or os.getcwd())
        self.path = os.path.join(self.root, path)
        if not os.path.isfile(self.path):
            raise ToolError(
                f"{self.path}: not found. Toolbox scripts run in the project folder, which needs an "
                "aipc.toml with a [project] table (docs/toolbox.md); cd there or create it"
            )
        with open(self.path, "rb") as f:
            raw = f.read()
        self.text = raw.decode("utf-8", "replace")
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as e:
            raise ToolError(f"aipc.toml: {e}; fix the TOML syntax") from None
        self.target = data.get("target")
        cfg = data.get("project")
        if not isinstance(cfg, dict):
            raise ToolError(
                "aipc.toml has no [project] table; add one with at least "
                'model = "model:load_model" and example_inputs = "data:example_inputs" (docs/toolbox.md)'
            )
        for key in cfg:
            if key not in KEYS:
                close = difflib.get_close_matches(key, list(KEYS), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                print(f"warning: {self._where(key)}: unknown key {key!r} in [project]{hint}; it is ignored", file=sys.stderr)
        for key, (types, default, desc) in KEYS.items():
            if key not in cfg:
                if key in REQUIRED:
                    raise ToolError(f"aipc.toml [project]: missing key {key!r} ({desc})")
                cfg[key] = default
                continue
            value = cfg[key]
            ok = isinstance(value, types) and not (isinstance(value, bool) and types in (int, (int, float)))
            if SCHEMA[key]["type"] == "string_list" and ok:
                ok = all(isinstance(v, str) for v in value)
            if not ok:
                raise ToolError(f"{self._where(key)}: key {key!r} = {value!r} has the wrong type: expected {desc}")
            allowed = SCHEMA[key].get("values")
            if allowed and value not in allowed:
                raise ToolError(f"{self._where(key)}: {key} = {value!r}: expected one of " + ", ".join(f'"{a}"' for a in allowed))
            low = SCHEMA[key].get("minimum")
            if low is not None and value < low:
                raise ToolError(f"{self._where(key)}: {key} = {value!r}: expected at least {low}")
        if cfg["rewrite_ops"]:
            from .rewrites import normalise, library_text

            unknown = [op for op in cfg["rewrite_ops"] if not normalise(op)]
            if unknown:
                raise ToolError(f"{self._where('rewrite_ops')}: rewrite_ops: {', '.join(map(repr, unknown))} not in the operator "
                                f"rewrite library; it has: {library_text()}. Remove it or use one of these names")
        cfg["rewrite_ops"] = list(cfg["rewrite_ops"])
        self.cfg = cfg
        if self.root not in sys.path:
            sys.path.insert(0, self.root)

    def _where(self, key):
        line = _line_of(getattr(self, "text", ""), key)
        return f"aipc.toml:{line}" if line else "aipc.toml"

    def __getitem__(self, key):
        return self.cfg[key]

    def get(self, key, default=None):
        v = self.cfg.get(key)
        return default if v is None else v

    def _call(self, key):
        return self._function(key)()

    def _function(self, key):
        """The function aipc.toml `key` names ("module:function"), imported from the project. The
        function may be an attribute path from a name the module binds: "data:Prep.standardise"
        (a static method), "data:SCALER.transform" (a method of an object the module holds),
        "data:Prep().standardise" (a method of an object its class makes with no arguments)."""
        spec = self.cfg.get(key)
        if not spec:
            raise ToolError(f"aipc.toml [project]: key {key!r} is not set ({KEYS[key][2]}); add it")
        if ":" not in spec:
            raise ToolError(f"{self._where(key)}: {key} = {spec!r}: expected \"module:function\", e.g. \"data:{key}\"")
        mod_name, fn_name = spec.split(":", 1)
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as e:
            if e.name == mod_name:
                raise ToolError(
                    f"{self._where(key)}: {key} = {spec!r}: no module {mod_name!r} in {self.root} "
                    f"(is there a {mod_name}.py?)"
                ) from None
            raise
        owner, fn, path = mod, mod, []
        for part in fn_name.split("."):
            make = part.endswith("()")  # "data:Prep()": an object its class makes with no arguments
            part = part[:-2] if make else part
            owner, fn = fn, getattr(fn, part, None)
            path.append(part)
            if fn is None:
                break
            if make:
                try:
                    fn = fn()
                except Exception as e:  # noqa: BLE001 -- the project's constructor: any failure is the answer
                    raise ToolError(f"{self._where(key)}: {key} = {spec!r}: {part}() fails ({type(e).__name__}: {e})") from None
        if not callable(fn):
            names = [n for n in dir(owner) if not n.startswith("_") and callable(getattr(owner, n, None))]
            close = difflib.get_close_matches(path[-1], names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            where = f"{mod_name}.py" if owner is mod else f"{mod_name}.{'.'.join(path[:-1])}"
            raise ToolError(f"{self._where(key)}: {key} = {spec!r}: {where} has no function {path[-1]!r}{hint}")
        return fn

    def load_model(self):
        """The project's nn.Module, in eval mode."""
        import torch

        model = self._call("model")
        if not isinstance(model, torch.nn.Module):
            raise ToolError(f"{self._where('model')}: {self.cfg['model']} returned {type(model).__name__}, not a torch.nn.Module")
        return model.eval()

    def example_inputs(self):
        """Tuple of example input tensors (a single tensor is wrapped)."""
        import torch

        x = self._call("example_inputs")
        if isinstance(x, torch.Tensor):
            x = (x,)
        if isinstance(x, list):
            x = tuple(x)
        if not isinstance(x, tuple) or not all(isinstance(t, torch.Tensor) for t in x):
            raise ToolError(f"{self._where('example_inputs')}: {self.cfg['example_inputs']} must return a tuple of tensors")
        # A batch of 1 with dynamic_batch = true is fine: the exporters trace it at batch 2
        # (tensors.for_dynamic_batch).
        return x

    def eval_data(self):
        """(tuple of batched input tensors, labels tensor or None)."""
        import torch

        d = self._call("eval_data")
        if not (isinstance(d, (tuple, list)) and len(d) == 2):
            raise ToolError(f"{self._where('eval_data')}: {self.cfg['eval_data']} must return (inputs, labels)")
        inputs, labels = d
        if isinstance(inputs, torch.Tensor):
            inputs = (inputs,)
        inputs = tuple(inputs)
        n = inputs[0].shape[0]
        if labels is not None and len(labels) != n:
            raise ToolError(f"{self.cfg['eval_data']}: {n} inputs but {len(labels)} labels")
        return inputs, labels

    def calibration_data(self):
        """List of input tuples."""
        import torch

        d = self._call("calibration_data")
        out = []
        for i, item in enumerate(d):
            if isinstance(item, torch.Tensor):
                item = (item,)
            item = tuple(item)
            if not all(isinstance(t, torch.Tensor) for t in item):
                raise ToolError(f"{self.cfg['calibration_data']}: item {i} is not a tuple of tensors")
            out.append(item)
        if not out:
            raise ToolError(f"{self.cfg['calibration_data']} returned no samples")
        return self._prepared_calibration(out)

    def _prepared_calibration(self, out):
        """The calibration samples with aipc.toml `calibration_prep` applied to every one, or
        `calibration_prep_outside` applied to those outside the reference inputs' range (the
        same range calib.audit judges them by)."""
        keys = [k for k in ("calibration_prep", "calibration_prep_outside") if self.cfg.get(k)]
        if not keys:
            return out
        if len(keys) == 2:
            raise ToolError(f"{self._where('calibration_prep_outside')}: calibration_prep and calibration_prep_outside are "
                            "both set; keep one (calibration_prep prepares every calibration input, "
                            "calibration_prep_outside only those outside the eval inputs' range)")
        from . import calib, calib_prep

        key = keys[0]
        chosen = range(len(out))
        if key == "calibration_prep_outside":
            reference, reference_name = calib.reference_samples(self)
            chosen = calib.audit(out, reference, reference_name, quiet=True).outside
        try:
            fn = self._function(key)
            prepared = calib_prep.apply(fn, [out[i] for i in chosen])
        except ValueError as e:
            raise ToolError(f"{self._where(key)}: {key} = {self.cfg[key]!r} does not apply to "
                            f"{self.cfg['calibration_data']}'s inputs ({e}); set it to the function that prepares "
                            "one input array the way the model is fed, or remove it") from None
        out = list(out)
        for i, sample in zip(chosen, prepared):
            out[i] = sample
        return out

    def run_inputs(self):
        """The inputs the project's application feeds the deployed model (aipc.toml `run_inputs`):
        a list of input tuples (tensors or numpy arrays, exactly as the app builds them: its own
        preprocessing, batch sizes and sequence lengths); [] when the key is not set."""
        return self.traced_run_inputs()[0]

    def traced_run_inputs(self):
        """run_inputs(), and for each item the function of the project that built each of its
        inputs (aipc_toolbox/builders.py: a Builder, or None when the trace does not find one)."""
        if not self.cfg.get("run_inputs"):
            return [], []
        from .builders import Trace

        with Trace(self.root) as trace:
            d = self._call("run_inputs")
        items = self._run_items(d, "run_inputs")
        return items, [[trace.builder_of(x) for x in item] for item in items]

    def traced_app_eval_data(self):
        """aipc.toml `app_eval_data`: (the input tuples the app feeds, built by its own
        preprocessing from labelled samples; their labels as a 1-D int64 numpy array, one per
        sample over all tuples; the builders of each tuple's inputs, as traced_run_inputs gives
        them). None when the key is not set."""
        if not self.cfg.get("app_eval_data"):
            return None
        import numpy as np

        from .builders import Trace

        with Trace(self.root) as trace:
            d = self._call("app_eval_data")
        where = f"{self._where('app_eval_data')}: {self.cfg['app_eval_data']}"
        if not (isinstance(d, (tuple, list)) and len(d) == 2):
            raise ToolError(f"{where}: expected (input tuples, labels), got {type(d).__name__}")
        items = self._run_items(d[0], "app_eval_data")
        labels = np.asarray(d[1].numpy() if hasattr(d[1], "numpy") else d[1]).reshape(-1)
        if labels.dtype.kind not in "iu":
            raise ToolError(f"{where}: the labels must be integers (class indices), got {labels.dtype}")
        samples = sum(int(item[0].shape[0]) if len(item[0].shape) else 1 for item in items)
        if samples != labels.shape[0]:
            raise ToolError(f"{where}: the input tuples hold {samples} samples (dim 0 of the first input) "
                            f"but there are {labels.shape[0]} labels; return one label per sample")
        return items, labels.astype(np.int64), [[trace.builder_of(x) for x in item] for item in items]

    def _run_items(self, d, key):
        out = []
        for i, item in enumerate(d if isinstance(d, (list, tuple)) else [d]):
            if hasattr(item, "shape"):
                item = (item,)
            item = tuple(item)
            if not item or not all(hasattr(t, "shape") and hasattr(t, "dtype") for t in item):
                raise ToolError(f"{self._where(key)}: {self.cfg[key]}: item {i} is not a tuple of tensors or arrays")
            out.append(item)
        return out

    def dynamic_dims(self, count):
        """aipc.toml dynamic_dims as (input index, dim, max) triples for `count` inputs."""
        names = self.input_names(count)
        out = []
        for entry in self.cfg.get("dynamic_dims") or []:
            parts = entry.split(":")
            ok = len(parts) == 3 and parts[0] in names and parts[1].isdigit() and parts[2].isdigit()
            if not ok:
                raise ToolError(f"{self._where('dynamic_dims')}: dynamic_dims entry {entry!r}: expected \"<input>:<dim>:<max>\" "
                                f"with an input of input_names ({', '.join(names)}), e.g. \"{names[0]}:2:512\"")
            out.append((names.index(parts[0]), int(parts[1]), int(parts[2])))
        return out

    def spec_file(self, key):
        """`infer.py` for `run_inputs = "infer:run_inputs"`: the file that holds a module:function."""
        spec = self.cfg.get(key) or ""
        module, _, function = spec.partition(":")
        return module.replace(".", "/") + ".py", function

    def shipped(self, fp32, int8):
        """The artifact the project ships: `int8` when aipc.toml quantize = "int8", else `fp32`."""
        return int8 if self.cfg["quantize"] == "int8" else fp32

    def input_names(self, count):
        names = self.cfg["input_names"] or (["input"] if count == 1 else [f"input_{i}" for i in range(count)])
        if len(names) != count:
            raise ToolError(f"{self._where('input_names')}: {len(names)} input_names for {count} example inputs")
        return list(names)

    def output_names(self, count=None):
        names = self.cfg["output_names"]
        if names is None:
            return None
        if count is not None and len(names) != count:
            raise ToolError(f"{self._where('output_names')}: {len(names)} output_names for {count} model outputs")
        return list(names)


def load(root=None):
    return Project(root)


def budget_line(path, out, budget, int8, quantize):
    """The text of `aipc-warning: fp32 over budget: ...` (both targets' profile_latency.py)."""
    ship = ('ship it: quantize = "int8" in aipc.toml (now "none")' if quantize != "int8"
            else 'aipc.toml quantize = "int8" ships it; profile {} measures it')
    return (f"{path} p50 {out['p50_ms']:.3f} ms > {float(budget)} ms budget; {int8} p50 {out['int8_p50_ms']:.3f} ms "
            f"meets it: {ship}")


def unbuilt_int8_line(path, out, budget, int8, quantize):
    """The text of `aipc-warning: fp32 over budget: ...` when no INT8 artifact exists to compare
    (a project that ships FP32 has no stage that builds one)."""
    why = ("the project ships FP32, so no stage made one" if quantize == "none"
           else "it was not built, or was removed")
    return (f"{path} p50 {out['p50_ms']:.3f} ms > {float(budget)} ms budget; no INT8 artifact is built ({int8} "
            f"missing: {why}): int8_formats {{}} builds each INT8 format, checks its accuracy and times it against FP32")


def without_budget(out, fp32, time_fp32):
    """profile's fields when aipc.toml sets no latency_budget_ms: nothing to meet (within_budget
    1), and a shipped INT8 artifact (out["kind"] == "int8") timed beside the FP32 one at `fp32`
    (time_fp32() -> its times in ms, same settings): fp32_p50_ms, int8_speedup. INT8 is not
    assumed faster."""
    import statistics

    from . import emit

    out["within_budget"] = 1
    if out["kind"] == "int8" and os.path.isfile(fp32):
        ms32 = time_fp32()
        out["fp32_p50_ms"] = float(statistics.median(ms32))
        out["int8_speedup"] = out["fp32_p50_ms"] / out["p50_ms"] if out["p50_ms"] > 0 else 0.0
        emit.note(f"{fp32} (fp32): p50 {out['fp32_p50_ms']:.3f} ms over {len(ms32)} runs, same settings: "
                  f"INT8 is {out['int8_speedup']:.2f}x FP32's speed")
    emit.note("no latency_budget_ms in aipc.toml [project]: the latency gate has nothing to meet (within_budget 1); "
              "set a budget to gate it")
    return out
