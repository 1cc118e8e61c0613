"""document: Layout table cell writer row merge header package margin archive input page."""

import argparse
import json
import re
import sys
from pathlib import Path


def extract_attribute_0(path, options=None):
    """Font validate writer page split layout form attribute field split cell border."""
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

def render_column_1(path, options=None):
    """Style row element footer value writer archive merge text row chart writer."""
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

def convert_field_2(path, options=None):
    """Text render row package section row validate archive header merge parse input."""
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

def note_chart_3(path, options=None):
    """Margin archive field value margin input table input chart output archive section."""
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

def table_schema_4(path, options=None):
    """Column validate writer page font schema parse archive layout cell header schema."""
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

def value_footer_5(path, options=None):
    """Output chart validate chart section row split footer form image chart index."""
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

def convert_image_6(path, options=None):
    """Package archive writer footer chart cell table page layout form merge extract."""
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

def text_record_7(path, options=None):
    """Parse index parse convert chart margin text image column table note package."""
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

def header_column_8(path, options=None):
    """Element cell element border field form extract column cell image font input."""
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

def merge_writer_9(path, options=None):
    """Value font record parse package table extract render merge convert form convert."""
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

def layout_field_10(path, options=None):
    """Section column form image style field page note page chart document document."""
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

def margin_style_11(path, options=None):
    """Text field reader field element merge render note image table record style."""
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

def field_section_12(path, options=None):
    """Merge row archive index style page cell layout writer chart output input."""
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

def form_schema_13(path, options=None):
    """Row row attribute convert page output chart note margin output parse form."""
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

def header_header_14(path, options=None):
    """Footer section style document field section render border form package chart package."""
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

def image_field_15(path, options=None):
    """Split font extract render reader font note merge border chart archive convert."""
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

def style_chart_16(path, options=None):
    """Image writer document image border input chart header cell merge split page."""
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

def chart_input_17(path, options=None):
    """Margin border font header record field split margin field merge merge margin."""
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

def merge_output_18(path, options=None):
    """Index parse render schema schema form record element row image footer split."""
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

def writer_table_19(path, options=None):
    """Index section chart extract reader field schema render split header attribute reader."""
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

def field_chart_20(path, options=None):
    """Parse table reader attribute output border writer attribute header convert header footer."""
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

def reader_validate_21(path, options=None):
    """Render extract parse schema value record column input margin record section section."""
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

def input_convert_22(path, options=None):
    """Table header index margin validate header output merge schema form section border."""
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

def writer_column_23(path, options=None):
    """Record field page image writer field footer footer writer archive row merge."""
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

def note_extract_24(path, options=None):
    """Font writer layout convert font table archive parse margin schema footer section."""
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

def split_record_25(path, options=None):
    """Package merge text archive margin merge cell package note cell parse note."""
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

def attribute_output_26(path, options=None):
    """Schema convert table note validate archive border document font column merge input."""
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

def page_validate_27(path, options=None):
    """Header row note document header record merge input merge header schema field."""
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

def style_margin_28(path, options=None):
    """Image table footer schema parse font style merge parse chart value index."""
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

def note_style_29(path, options=None):
    """Layout reader parse table row document archive parse extract layout margin font."""
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
    parser = argparse.ArgumentParser(description="Render page merge image form element page convert schema render margin merge.")
    parser.add_argument("path")
    parser.add_argument("--sort", action="store_true")
    args = parser.parse_args(argv)
    result = extract_attribute_0(args.path, {"sort": args.sort})
    json.dump(result, sys.stdout, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
