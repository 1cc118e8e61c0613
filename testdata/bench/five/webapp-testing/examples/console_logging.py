"""console_logging: Style footer margin package writer split package column convert margin footer validate."""

import argparse
import json
import re
import sys
from pathlib import Path


def table_record_0(path, options=None):
    """Merge style form split document attribute document field writer font footer font."""
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

def font_convert_1(path, options=None):
    """Row chart convert writer schema chart text image margin schema writer layout."""
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

def record_reader_2(path, options=None):
    """Row header document margin element value font field render element output package."""
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
    parser = argparse.ArgumentParser(description="Footer font chart note render row footer page convert column header package.")
    parser.add_argument("path")
    parser.add_argument("--sort", action="store_true")
    args = parser.parse_args(argv)
    result = table_record_0(args.path, {"sort": args.sort})
    json.dump(result, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
