"""Arguments of a toolbox script, built from its entry in a `toolbox.toml` manifest.

The manifest declares each tool's arguments as a compact JSON schema (docs/toolbox.md). The same
schema gives two front doors:

- `--args-json '{"opset": 17}'`: the arguments object of the model's tool call, validated here
  (types, enums, ranges, required keys, unknown keys with a "did you mean");
- `--opset 17`, `--dynamic_batch` / `--no-dynamic_batch`, `--nodes_to_exclude a,b`: one flag per
  property for engineers and check commands (dashes work too: `--dynamic-batch`).

Flags override `--args-json`. Properties left out get the schema's `default`, else None (the
script then falls back to the project's aipc.toml).

The entry is looked up by tool name in, in order: the `toolbox.toml` next to the script (the
shared fixes are declared in toolbox/fixes/toolbox.toml), `$AIPC_TARGET_DIR/toolbox.toml`, then
every `toolbox/targets/*/toolbox.toml`, each with the manifests it includes (`[[include]]`).
"""
import argparse
import difflib
import json
import os
import sys
import tomllib
from pathlib import Path

from .emit import ToolError

TYPES = {"integer", "number", "string", "boolean", "array", "object"}


def _manifests(script):
    here = Path(script).resolve().parent
    seen = []
    cands = [here / "toolbox.toml"]
    if os.environ.get("AIPC_TARGET_DIR"):
        cands.append(Path(os.environ["AIPC_TARGET_DIR"]) / "toolbox.toml")
    toolbox = Path(os.environ["AIPC_TOOLBOX"]) if os.environ.get("AIPC_TOOLBOX") else None
    for up in [here, *here.parents]:
        if (up / "targets").is_dir() and (up / "lib" / "aipc_toolbox").is_dir():
            toolbox = toolbox or up
            break
    if toolbox is not None:
        cands.extend(sorted((toolbox / "targets").glob("*/toolbox.toml")))
    for c in cands:
        if c.is_file() and c not in seen:
            seen.append(c)
    return seen


def load_manifest(path, _chain=()):
    """Parse one toolbox.toml and the manifests it includes, and check their shape; returns the
    list of tool entries, its own first, then the included ones (aipc keeps the file order; only
    the set matters here). An included entry's `script` is made relative to `path`'s folder."""
    path = Path(path)
    with open(path, "rb") as f:
        data = tomllib.load(f)
    tools = list(data.get("tool", []))
    for inc in data.get("include", []):
        rel = inc.get("path") if isinstance(inc, dict) else None
        if not isinstance(rel, str) or not rel:
            raise ToolError(f"{path}: [[include]] needs a string `path`")
        target = (path.parent / rel).resolve()
        if target in _chain or target == path.resolve():
            raise ToolError(f"{path}: include cycle through {target}")
        for t in load_manifest(target, (*_chain, path.resolve())):
            t = dict(t, script=os.path.relpath(target.parent / t["script"], path.parent))
            tools.append(t)
    names = set()
    for i, t in enumerate(tools):
        where = f"{path}: [[tool]] #{i + 1}"
        for key in ("name", "script", "description"):
            if not isinstance(t.get(key), str) or not t[key]:
                raise ToolError(f"{where}: missing or empty string key {key!r}")
        if t["name"] in names:
            raise ToolError(f"{where}: duplicate tool name {t['name']!r}")
        names.add(t["name"])
        schema = t.get("args", {"type": "object", "properties": {}})
        if schema.get("type", "object") != "object":
            raise ToolError(f"{where}: [tool.args] type must be \"object\"")
        for pname, prop in schema.get("properties", {}).items():
            if prop.get("type") not in TYPES:
                raise ToolError(f"{where}: argument {pname!r}: type {prop.get('type')!r} is not one of {sorted(TYPES)}")
        for req in schema.get("required", []):
            if req not in schema.get("properties", {}):
                raise ToolError(f"{where}: required argument {req!r} is not among the properties")
    return tools


def find_entry(tool, script):
    """The manifest entry of `tool`, and the manifest it came from."""
    looked = []
    for m in _manifests(script):
        looked.append(str(m))
        for t in load_manifest(m):
            if t["name"] == tool:
                return t, m
    raise ToolError(
        f"tool {tool!r} is not declared in any toolbox manifest (looked in: {', '.join(looked) or 'nothing found'}); "
        "add a [[tool]] entry to toolbox/targets/<target>/toolbox.toml or set AIPC_TARGET_DIR"
    )


def _check_value(name, value, prop):
    """Check one argument against its schema property; returns the (coerced) value."""
    kind = prop.get("type")
    if kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ToolError(f"argument {name!r} must be an integer, got {json.dumps(value)}")
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ToolError(f"argument {name!r} must be a number, got {json.dumps(value)}")
        value = float(value)
    elif kind == "string":
        if not isinstance(value, str):
            raise ToolError(f"argument {name!r} must be a string, got {json.dumps(value)}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise ToolError(f"argument {name!r} must be true or false, got {json.dumps(value)}")
    elif kind == "array":
        if not isinstance(value, list):
            raise ToolError(f"argument {name!r} must be a list, got {json.dumps(value)}")
        item = prop.get("items")
        if item:
            value = [_check_value(f"{name}[{i}]", v, item) for i, v in enumerate(value)]
    elif kind == "object":
        if not isinstance(value, dict):
            raise ToolError(f"argument {name!r} must be an object, got {json.dumps(value)}")
    if "enum" in prop and value not in prop["enum"] and isinstance(value, str):
        # A small model writes "minmax" for "MinMax": accept any case, keep the canonical spelling.
        folded = {e.lower(): e for e in prop["enum"] if isinstance(e, str)}
        value = folded.get(value.lower(), value)
    if "enum" in prop and value not in prop["enum"]:
        raise ToolError(f"argument {name!r} must be one of {json.dumps(prop['enum'])}, got {json.dumps(value)}")
    if kind in ("integer", "number"):
        if "minimum" in prop and value < prop["minimum"]:
            raise ToolError(f"argument {name!r} must be >= {prop['minimum']}, got {value}")
        if "maximum" in prop and value > prop["maximum"]:
            raise ToolError(f"argument {name!r} must be <= {prop['maximum']}, got {value}")
    return value


def _from_flag(name, text, prop):
    """Turn a command-line string into the schema's type."""
    kind = prop.get("type")
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
        if kind == "array":
            text = text.strip()
            if text.startswith("["):
                return json.loads(text)
            items = [t.strip() for t in text.split(",") if t.strip()]
            sub = prop.get("items", {"type": "string"})
            return [_from_flag(name, t, sub) for t in items]
        if kind == "object":
            return json.loads(text)
    except (ValueError, json.JSONDecodeError) as e:
        raise ToolError(f"--{name}: cannot read {text!r} as {kind}: {e}") from None
    return text


def build_parser(entry):
    schema = entry.get("args", {})
    props = schema.get("properties", {})
    p = argparse.ArgumentParser(
        prog=entry["script"],
        description=entry["description"],
        epilog="Prints progress, then one JSON object as its last line (docs/toolbox.md).",
    )
    p.add_argument("--args-json", metavar="JSON", help="the arguments as one JSON object (the model's tool call)")
    for name, prop in props.items():
        flags = [f"--{name}"]
        if "_" in name:
            flags.append(f"--{name.replace('_', '-')}")
        help_text = prop.get("description", "")
        if "enum" in prop:
            help_text += f" (one of: {', '.join(map(str, prop['enum']))})"
        if "default" in prop:
            help_text += f" [default: {prop['default']}]"
        if prop.get("type") == "boolean":
            p.add_argument(*flags, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        else:
            p.add_argument(*flags, dest=name, default=None, metavar=prop.get("type", "value").upper(), help=help_text)
    return p


def parse(tool, script, argv=None):
    """Read a script's arguments; returns a dict with every declared property."""
    entry, _ = find_entry(tool, script)
    schema = entry.get("args", {})
    props = schema.get("properties", {})
    ns = build_parser(entry).parse_args(sys.argv[1:] if argv is None else argv)
    values = {}
    if ns.args_json:
        try:
            given = json.loads(ns.args_json)
        except json.JSONDecodeError as e:
            raise ToolError(f"--args-json is not valid JSON ({e}): {ns.args_json!r}") from None
        if not isinstance(given, dict):
            raise ToolError(f"--args-json must be a JSON object like {{\"opset\": 18}}, got {ns.args_json!r}")
        for key, value in given.items():
            if key not in props:
                close = difflib.get_close_matches(key, list(props), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                allowed = ", ".join(props) or "none"
                raise ToolError(f"tool {tool!r} has no argument {key!r}{hint}; its arguments: {allowed}")
            values[key] = value
    for name, prop in props.items():
        raw = getattr(ns, name)
        if raw is None:
            continue
        values[name] = raw if prop.get("type") == "boolean" else _from_flag(name, raw, prop)
    out = {}
    for name, prop in props.items():
        if name in values and values[name] is not None:
            out[name] = _check_value(name, values[name], prop)
        else:
            out[name] = prop.get("default")
    missing = [r for r in schema.get("required", []) if out.get(r) is None]
    if missing:
        raise ToolError(f"tool {tool!r} needs argument(s) {', '.join(missing)}: e.g. --args-json '{json.dumps({m: '...' for m in missing})}'")
    return out
