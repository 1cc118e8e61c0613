"""Print the names of the form fields of a PDF, one a line."""
import sys

from pypdf import PdfReader


def main(path):
    for name in sorted(PdfReader(path).get_fields() or {}):
        print(name)


if __name__ == "__main__":
    main(sys.argv[1])
