"""Browser tools: search, fetch and download."""
from gaia.agents.base.tools import tool
from gaia.web import browser


@tool
def search_web(query: str) -> dict:
    """Search the web for current information."""
    return browser.search(query)


@tool
def fetch_page(url: str) -> dict:
    """Fetch and extract the readable text of a URL."""
    return browser.fetch(url)


@tool
def download_file(url: str) -> dict:
    """Download a file from a URL to local disk."""
    return {"path": browser.download(url)}
