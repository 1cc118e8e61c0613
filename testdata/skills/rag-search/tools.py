"""Retrieval tools over the local document index."""
from typing import Optional

from gaia.agents.base.tools import tool
from gaia.rag import index


@tool
def query_documents(query: str) -> dict:
    """Answer a question over all indexed documents."""
    return index.answer(query)


@tool(atomic=True)
def search_indexed_chunks(
    pattern: str,
) -> dict:
    """Return the top matching chunks for a pattern."""
    return {"chunks": index.search(pattern)}


@tool
def list_indexed_documents() -> dict:
    """List documents currently in the index."""
    return {"documents": index.list()}


def _helper(path: Optional[str] = None) -> None:
    """Not a tool: no decorator."""
