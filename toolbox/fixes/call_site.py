"""fix_call_site: call another method of the same object at one call site of the project's code.

The repair of a data path that reads through the wrong one of two sibling accessors (an
`aipc-warning: calibration scale:` line that names the call at file:line and the sibling that,
called there instead, brings the calibration set into range; aipc_toolbox/calib_sibling.py).
The call `obj.<call>(...)` on that line becomes `obj.<instead>(...)`, its receiver and arguments
left as they are. Refused, writing nothing, when the line holds no such call or more than one,
or `instead` is not a name. The gates measure the result: quantize audits the calibration set
again.

Usage: python call_site.py --file data/calib.py --line 12 --call read_words --instead read_values
"""
import ast

from aipc_toolbox import emit
from _codemod import FixRefused, finish, project_path, read


def _calls_at(tree, call, line):
    """The calls `<expr>.<call>(...)` whose method name is on `line`."""
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == call
            and node.func.end_lineno == line]


def body(a):
    call, instead, line = a["call"], a["instead"], a["line"]
    for what, name in (("call", call), ("instead", instead)):
        if not name.isidentifier():
            raise FixRefused(f"{what} {name!r} is not a method name (e.g. read_values); nothing was changed")
    if call == instead:
        raise FixRefused(f"call and instead are both {call!r}; nothing was changed")
    path = project_path(a["file"])
    text, tree = read(path)
    found = _calls_at(tree, call, line)
    if len(found) != 1:
        on_line = sorted({n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call)
                          and isinstance(n.func, ast.Attribute) and n.func.end_lineno == line})
        what = "no call" if not found else f"{len(found)} calls"
        raise FixRefused(f"{path}:{line}: {what} of .{call}(...) on this line (its method calls: "
                         f"{', '.join(on_line) or 'none'}); nothing was changed: pass the line the warning names")
    func = found[0].func
    lines = text.splitlines(keepends=True)
    row = lines[line - 1]
    start = len(row.encode("utf-8")[: func.end_col_offset].decode("utf-8", "replace")) - len(call)
    if row[start: start + len(call)] != call:
        raise FixRefused(f"{path}:{line}: .{call} is not where the parser puts it (a continuation line?); nothing "
                         "was changed: edit the call by hand")
    lines[line - 1] = row[:start] + instead + row[start + len(call):]
    new = "".join(lines)
    changed, diff = finish(path, text, new, a["dry_run"])
    emit.note(f"{path}:{line}: .{call}(...) -> .{instead}(...)" + (" (dry run: not written)" if a["dry_run"] else ""))
    return {"file": path, "line": line, "call": call, "instead": instead, "changed_lines": changed,
            "written": int(not a["dry_run"]), "diff": diff}


if __name__ == "__main__":
    emit.main("fix_call_site", __file__, "build", body)
