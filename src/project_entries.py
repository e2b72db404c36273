"""aipc's check of aipc.toml's module:function entries, without importing anything (the
toolchain, torch, may not be installed yet): each module file is parsed with `ast`, and the
function must be bound at its top level (def, class, assignment or import). Embedded in the aipc
binary (src/project_entries.rs); argv: project folder, then a JSON list of [key, entry, line].
Prints one JSON list of problems: {"key", "file", "line", "message"}."""
import ast
import difflib
import json
import os
import sys


def top_level_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names.add(n.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.If):
            # a def under a top-level `if` or `try` (platform switches, optional imports)
            names |= top_level_names(ast.Module(body=node.body + node.orelse, type_ignores=[]))
        elif isinstance(node, ast.Try):
            bodies = node.body + node.orelse + node.finalbody + [s for h in node.handlers for s in h.body]
            names |= top_level_names(ast.Module(body=bodies, type_ignores=[]))
    return names


def module_file(root, module):
    rel = os.path.join(*module.split("."))
    for candidate in (rel + ".py", os.path.join(rel, "__init__.py")):
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def main():
    root, entries = sys.argv[1], json.loads(sys.argv[2])
    problems = []
    for key, entry, line in entries:
        module, _, function = entry.partition(":")
        rel = module_file(root, module)
        if rel is None:
            continue  # the static check reports a missing module
        try:
            with open(os.path.join(root, rel), "rb") as f:
                tree = ast.parse(f.read(), filename=rel)
        except SyntaxError as e:
            problems.append({"key": key, "file": rel, "line": e.lineno or 0,
                             "message": f"does not parse: {e.msg}; `{key}` = \"{entry}\" cannot be imported"})
            continue
        except (OSError, ValueError) as e:
            problems.append({"key": key, "file": "aipc.toml", "line": line, "message": f"cannot read {rel}: {e}"})
            continue
        names = top_level_names(tree)
        # `Prep.standardise` / `SCALER.transform`: the module binds the first name; the rest is
        # looked up when the project is imported.
        bound = function.split(".")[0]
        if bound not in names:
            close = difflib.get_close_matches(bound, sorted(n for n in names if not n.startswith("_")), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            problems.append({"key": key, "file": "aipc.toml", "line": line,
                             "message": f"`{key}` = \"{entry}\": {rel} defines no `{bound}` at its top level{hint}"})
    print(json.dumps(problems))


main()
