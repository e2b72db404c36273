"""Which function of the project built each input the application feeds: the call of aipc.toml
`run_inputs` is followed with a profile hook, and every array or tensor a project function
returns is remembered (with the tuples and lists that hold them), so an input can be traced back
to the innermost project function that returned that very object — the app's own preprocessing
(`Pipeline.to_batch` in `app/pipeline.py`), not the hook that collects its results.

A repair of the input contract (dtype, layout, contiguity) belongs in that function: a fix in the
hook would leave the app's real inference path as wrong as it was.
"""
import os
import sys
from dataclasses import dataclass

MAX_RETURNS = 50_000  # returns remembered per traced call; beyond it the trace is partial
CONFORM = "_aipc_conform_feed"  # fix_input_feed's decorator (toolbox/fixes/input_feed.py)


@dataclass(frozen=True)
class Builder:
    """A project function that returned an input: `file` (relative to the project), `function`
    (its qualified name, `Class.method` for a method), `line` (of its `def`), and `position`:
    None when it returned the input itself, else the input's index in the tuple it returned (or
    in each tuple of the list it returned)."""

    file: str
    function: str
    line: int
    position: object = None

    def origin(self):
        """`app/pipeline.py Pipeline.to_batch()`, as the warnings name it."""
        return f"{self.file} {self.function}()"


def holds_array(value):
    """Whether `value` is array-like (a numpy array or a tensor: it has a shape and a dtype)."""
    return hasattr(value, "shape") and hasattr(value, "dtype")


class ProjectProfile:
    """A profile hook (`sys.setprofile`) that sees only the project's own code: it passes the
    call and return events of the project's named functions (not a comprehension, lambda or
    module body) to `_project_event(frame, event, arg)`, which subclasses implement (they may
    call `_in_project(filename)` for other frames); `with` installs it."""

    def __init__(self, root):
        self.root = os.path.realpath(root) + os.sep
        self._files = {}

    def _in_project(self, filename):
        inside = self._files.get(filename)
        if inside is None:
            # "<frozen importlib._bootstrap>", "<string>": no file, and a relative name that
            # would resolve inside the project (the current folder) without this test.
            real = os.path.realpath(filename)
            inside = (not filename.startswith("<") and real.startswith(self.root)
                      and os.sep + "site-packages" + os.sep not in real)
            self._files[filename] = inside
        return inside

    def _hook(self, frame, event, arg):
        if event not in ("call", "return"):
            return
        code = frame.f_code
        if code.co_name.startswith("<") or not self._in_project(code.co_filename):
            return
        self._project_event(frame, event, arg)

    def _project_event(self, frame, event, arg):
        raise NotImplementedError

    def _clear_project_caches(self):
        """Empty the memo caches (functools.cache / lru_cache) of the project's module-level
        functions and class attributes: a data function whose result an earlier call of the same
        process cached returns it without running the code on its path, and the trace would see
        nothing (a probe project's eval set, cached behind its example, hid its normalisation)."""
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if not file or not self._in_project(file):
                continue
            for value in list(vars(module).values()):
                scopes = [value] + (list(vars(value).values()) if isinstance(value, type) else [])
                for item in scopes:
                    item = getattr(item, "__func__", item)
                    if callable(getattr(item, "cache_clear", None)) and hasattr(item, "cache_info"):
                        item.cache_clear()

    def __enter__(self):
        self._clear_project_caches()
        self._previous = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self._previous)
        return False


class Trace(ProjectProfile):
    """Profile hook over project code: the (value, code) of every return worth remembering."""

    def __init__(self, root):
        super().__init__(root)
        self.returns = []

    def _project_event(self, frame, event, arg):
        if event != "return" or arg is None or len(self.returns) >= MAX_RETURNS:
            return
        code = frame.f_code
        qualname = getattr(code, "co_qualname", code.co_name)
        if qualname.startswith(CONFORM):
            # fix_input_feed's decorator: what its wrapper returns, the decorated function built
            wrapped = frame.f_locals.get("function") if qualname.endswith(".conformed") else None
            if wrapped is None or not hasattr(wrapped, "__code__"):
                return
            code = wrapped.__code__
        if holds_array(arg) or (isinstance(arg, (tuple, list)) and 0 < len(arg) <= 4096):
            self.returns.append((arg, code))

    def builder_of(self, x):
        """The innermost project function that returned `x` (returns are recorded innermost
        first), or None."""
        for value, code in self.returns:
            position = _where(value, x)
            if position is not False:
                file = os.path.relpath(os.path.realpath(code.co_filename), self.root)
                name = getattr(code, "co_qualname", code.co_name).replace(".<locals>", "")
                return Builder(file, name, code.co_firstlineno, position)
        return None


def _where(value, x):
    """None when `value` is `x`; k when x is element k of the tuple `value`, or element k of one
    of the tuples in the list `value`; False when `value` does not hold x."""
    if value is x:
        return None
    if isinstance(value, (tuple, list)):
        for k, v in enumerate(value):
            if v is x:
                return k
        for item in value[:4096]:
            if isinstance(item, (tuple, list)):
                for k, v in enumerate(item):
                    if v is x:
                        return k
    return False
