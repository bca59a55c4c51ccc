#!/usr/bin/env python3
"""Writes the first ```LANG block under a Markdown heading to a file.

    doc_block.py DOC.md "HEADING" LANG OUT

HEADING is the heading's text without the #s. Fails (exit 1) when there is
no such heading or block: a renamed section must not silently test nothing.
"""
import re
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    doc, heading, lang, out = sys.argv[1:]
    lines = open(doc, encoding="utf-8").read().split("\n")
    inside, block, fenced = False, None, False
    for line in lines:
        if line.strip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#+ ", line):
            if inside:
                break
            inside = line.lstrip("#").strip() == heading
            continue
        if not inside:
            continue
        if block is None and line.strip() == "```" + lang:
            block = []
        elif block is not None and line.strip() == "```":
            break
        elif block is not None:
            block.append(line)
    if not block:
        sys.exit("%s: no ```%s block under '%s'" % (doc, lang, heading))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(block) + "\n")


if __name__ == "__main__":
    main()
