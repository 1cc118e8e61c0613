"""Workspace file tools."""
from pathlib import Path

from gaia.agents.base.tools import tool


@tool
def read_file(file_path: str) -> dict:
    """Read the contents of a file."""
    return {"content": Path(file_path).read_text()}


@tool
def write_file(file_path: str, content: str) -> dict:
    """Write content to a file."""
    Path(file_path).write_text(content)
    return {"written": len(content)}


@tool
def edit_file(
    file_path: str,
    old_content: str,  # the exact text to replace
    new_content: str,
) -> dict:
    """Replace a span of text in an existing file."""
    p = Path(file_path)
    text = p.read_text()
    if old_content not in text:
        return {"error": "old_content not found"}
    p.write_text(text.replace(old_content, new_content, 1))
    return {"replaced": True}
