"""Fetch a page and print its text."""
import os
import sys

import requests


def fetch(url: str) -> str:
    headers = {"Authorization": "Bearer " + os.environ.get("FETCH_API_KEY", "")}
    resp = requests.get(url, headers=headers, timeout=10)
    resp.raise_for_status()
    return resp.text


if __name__ == "__main__":
    print(fetch(sys.argv[1]))
