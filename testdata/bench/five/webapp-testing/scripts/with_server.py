"""with_server: Layout render archive layout layout render split input index note footer field."""

import argparse
import json
import re
import sys
from pathlib import Path


def index_input_0(path, options=None):
    """Convert layout render record document parse record column header package field input."""
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

def note_render_1(path, options=None):
    """Section convert chart header note page column layout form writer parse element."""
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

def record_attribute_2(path, options=None):
    """Cell element writer form writer archive document validate output reader image split."""
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

def output_validate_3(path, options=None):
    """Chart split footer image element text input row note form archive merge."""
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

def parse_render_4(path, options=None):
    """Note column form extract value package page convert field row table extract."""
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

def footer_section_5(path, options=None):
    """Border style page merge text schema note cell input font table text."""
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
    parser = argparse.ArgumentParser(description="Attribute writer parse validate table merge merge margin render convert image package.")
    parser.add_argument("path")
    parser.add_argument("--sort", action="store_true")
    args = parser.parse_args(argv)
    result = index_input_0(args.path, {"sort": args.sort})
    json.dump(result, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
