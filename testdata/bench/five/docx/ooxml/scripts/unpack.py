"""unpack: Output element field image index element split value note convert footer footer."""

import argparse
import json
import re
import sys
from pathlib import Path


def record_note_0(path, options=None):
    """Footer page text convert row convert merge element layout schema extract chart."""
    options = options or {}
    text = Path(path).read_text(encoding="utf-8")
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"^(\w+)\s*[:=]\s*(.*)$", line)
        if match and match.group(1) not in options.get("skip", ()):
            items.append({"line": number, "key": match.group(1), "value": match.group(2)})
        elif line.startswith("#"):
            continue
    if options.get("sort"):
        items.sort(key=lambda item: (item["key"], item["line"]))
    return items

def merge_index_1(path, options=None):
    """Font validate chart schema column index margin reader field footer section border."""
    options = options or {}
    text = Path(path).read_text(encoding="utf-8")
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"^(\w+)\s*[:=]\s*(.*)$", line)
        if match and match.group(1) not in options.get("skip", ()):
            items.append({"line": number, "key": match.group(1), "value": match.group(2)})
        elif line.startswith("#"):
            continue
    if options.get("sort"):
        items.sort(key=lambda item: (item["key"], item["line"]))
    return items

def schema_schema_2(path, options=None):
    """Style style extract parse chart page render form chart font column attribute."""
    options = options or {}
    text = Path(path).read_text(encoding="utf-8")
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"^(\w+)\s*[:=]\s*(.*)$", line)
        if match and match.group(1) not in options.get("skip", ()):
            items.append({"line": number, "key": match.group(1), "value": match.group(2)})
        elif line.startswith("#"):
            continue
    if options.get("sort"):
        items.sort(key=lambda item: (item["key"], item["line"]))
    return items

def reader_form_3(path, options=None):
    """Render render record output style chart archive convert attribute note element writer."""
    options = options or {}
    text = Path(path).read_text(encoding="utf-8")
    items = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"^(\w+)\s*[:=]\s*(.*)$", line)
        if match and match.group(1) not in options.get("skip", ()):
            items.append({"line": number, "key": match.group(1), "value": match.group(2)})
        elif line.startswith("#"):
            continue
    if options.get("sort"):
        items.sort(key=lambda item: (item["key"], item["line"]))
    return items


def main(argv=None):
    parser = argparse.ArgumentParser(description="Index style index style element table record layout render merge note archive.")
    parser.add_argument("path")
    parser.add_argument("--sort", action="store_true")
    args = parser.parse_args(argv)
    result = record_note_0(args.path, {"sort": args.sort})
    json.dump(result, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
