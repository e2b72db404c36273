"""Output of every toolbox script, as docs/toolbox.md fixes it.

- progress and the toolchain's own output go to stdout/stderr as they come;
- silent failures (no exception, wrong result) print one `aipc-warning: <kind>: <text>` line;
- the **last line on stdout** is one JSON object: `{"ok": true, ...metrics}` with exit 0, or
  `{"ok": false, "error": "<ExceptionClass>: <first line>", "stage_hint": ...}` with exit 1,
  the full traceback printed on stderr before it (the classifier reads all of it).

`main(...)` wraps a script's body so that every exception ends that way.
"""
import json
import math
import os
import re
import sys
import time
import traceback

# Set when the script imports aipc_toolbox (before torch and the toolchain), so `wall_s`
# includes the toolchain's import time, which dominates short scripts.
_T0 = time.monotonic()


class ToolError(Exception):
    """A problem the script found itself (bad artifact path, wrong project setup, ...).

    The message says what was wrong, where, and what to do; it is printed without a traceback
    because there is no toolchain frame worth reading.
    """


def warn(kind, text):
    """Print one silent-failure line, e.g. warn("opset drift", "requested opset 13, ...")."""
    print(f"aipc-warning: {kind}: {text}", flush=True)


def note(text):
    """A progress line (stdout, flushed so the engine streams it live)."""
    print(text, flush=True)


def _clean(value):
    """Make a value JSON-safe: numpy scalars to Python numbers, non-finite floats to null."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def result(fields):
    """Print the success line: {"ok": true, ...fields}."""
    out = {"ok": True}
    out.update(_clean(fields))
    sys.stderr.flush()
    print(json.dumps(out), flush=True)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _first_line(exc):
    text = _ANSI.sub("", str(exc)).strip()
    return text.splitlines()[0].strip() if text else ""


def describe(exc):
    """`<ExceptionClass>: <first line>` for an exception."""
    line = _first_line(exc)
    return f"{type(exc).__name__}: {line}" if line else type(exc).__name__


def root_cause(exc):
    """The innermost exception of a `raise ... from ...` / implicit context chain."""
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        nxt = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
        if nxt is None:
            break
        exc = nxt
    return exc


def error(exc, stage_hint, extra=None):
    """Print the traceback (stderr), then the failure line (stdout); return exit code 1."""
    if isinstance(exc, ToolError):
        print(f"error: {exc}", file=sys.stderr)
    else:
        traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.flush()
    out = {"ok": False, "error": describe(exc), "stage_hint": stage_hint}
    cause = root_cause(exc)
    if cause is not exc:
        out["cause"] = describe(cause)
    if extra:
        out.update(_clean(extra))
    print(json.dumps(out), flush=True)
    return 1


def main(tool, script, stage_hint, body):
    """Run a toolbox script: parse its arguments, call `body(args)` -> dict, print the result.

    `wall_s` (the script's own wall time, imports included) is added to every result.
    """
    started = _T0
    from . import args as args_mod

    try:
        args = args_mod.parse(tool, script)
    except SystemExit as e:  # argparse --help or usage error
        if e.code in (0, None):
            raise
        return sys.exit(error(ToolError(f"bad arguments for tool {tool!r}: see the usage above"), stage_hint))
    except Exception as exc:  # noqa: BLE001 - every failure must end in the JSON line
        sys.exit(error(exc, stage_hint))
    try:
        fields = body(args) or {}
    except Exception as exc:  # noqa: BLE001
        sys.exit(error(exc, stage_hint, {"wall_s": round(time.monotonic() - started, 3)}))
    fields["wall_s"] = round(time.monotonic() - started, 3)
    result(fields)
    sys.exit(0)


def rel(path):
    """A path as the project sees it (relative to the cwd when inside it)."""
    try:
        r = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if r.startswith("..") else r
