"""Print the headings of a Markdown file as an indented list."""
import sys


def main(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                level = len(line) - len(line.lstrip("#"))
                print("  " * (level - 1) + "- " + line.strip("# \n"))


if __name__ == "__main__":
    main(sys.argv[1])
