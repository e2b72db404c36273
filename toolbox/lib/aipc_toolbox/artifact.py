"""The one check every tool that reads an artifact makes first: the file is there. When it is
not, the error names the tool that writes it (quantize for an INT8 artifact, export for the rest),
so the evidence leads to that call instead of to the stage that came before."""
import os

from aipc_toolbox.emit import ToolError


def producing_tool(path):
    """The tool that writes `path`: quantize for an INT8 artifact (its name says int8), else export."""
    return "quantize" if "int8" in os.path.basename(path).lower() else "export"


def require_artifact(path, what="artifact", hint=None):
    """`path` when it is a file; else a ToolError naming the cwd and what to call (`hint`, or the
    producing tool)."""
    if not os.path.isfile(path):
        tool = producing_tool(path)
        hint = hint or (f"call {tool} first (it writes {path})" if tool == "export"
                        else f"call quantize first (it writes {path} from the FP32 artifact)")
        raise ToolError(f"{what} {path} does not exist (cwd {os.getcwd()}); {hint}")
    return path
