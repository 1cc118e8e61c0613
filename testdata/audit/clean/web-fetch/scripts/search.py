"""Search with the fetch API: one declared variable, sent in a header."""
import os

import requests

API = "https://api.example.invalid/search"


def search(query: str) -> dict:
    resp = requests.get(
        API,
        params={"q": query},
        headers={"X-Subscription-Token": os.environ["FETCH_API_KEY"]},
        timeout=10,
    )
    resp.raise_for_status()
    return resp.json()
