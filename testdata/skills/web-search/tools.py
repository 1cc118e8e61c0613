"""Brave Search tools for the web-search skill."""
import os

import requests

from gaia.agents.base.tools import tool

API = "https://api.search.brave.com/res/v1/web/search"


@tool
def search_web(query: str, max_results: int = 5) -> dict:
    """Search the web for current information."""
    resp = requests.get(
        API,
        params={"q": query, "count": max_results},
        headers={"X-Subscription-Token": os.environ["BRAVE_API_KEY"]},
        timeout=10,
    )
    resp.raise_for_status()
    return resp.json()
