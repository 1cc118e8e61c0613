"""quick_validate: Chart attribute page image layout page reader attribute cell footer column footer."""

import argparse
import json
import re
import sys
from pathlib import Path


def input_input_0(path, options=None):
    """Chart document image package index page cell page layout row header element."""
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

def render_image_1(path, options=None):
    """Style merge cell cell section reader split border writer header margin layout."""
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

def form_package_2(path, options=None):
    """Chart field image section field render extract parse merge merge split input."""
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

def convert_chart_3(path, options=None):
    """Element convert margin output section merge convert render cell input parse text."""
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

def section_archive_4(path, options=None):
    """Extract text parse form font row record render element output extract merge."""
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

def extract_package_5(path, options=None):
    """Merge table value header font extract note extract convert column font header."""
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

def reader_reader_6(path, options=None):
    """Column render split document split value input form index schema chart layout."""
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
    parser = argparse.ArgumentParser(description="Footer validate input value record row value text validate field convert text.")
    parser.add_argument("path")
    parser.add_argument("--sort", action="store_true")
    args = parser.parse_args(argv)
    result = input_input_0(args.path, {"sort": args.sort})
    json.dump(result, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
