#!/usr/bin/env python3
"""Issue 48: an imported YAML carries no value the config did not give without a line of the import table that
says where it came from. Every key the YAML writes (flattened; env maps as one) must be named in the table: as
a row's target ("-> key"), or at the start of a note or a "not from the config" line ("key: ...", "key value").
Usage: import_accounted.py IMPORTED_YAML TABLE. Prints the keys no line accounts for; exit 1 then."""
import re
import sys

import yaml


def keys(node, prefix=""):
    for k, v in node.items():
        path = prefix + str(k)
        if isinstance(v, dict) and path not in ("env", "trainer.env"):
            yield from keys(v, path + ".")
        else:
            yield path


def main():
    doc = yaml.safe_load(open(sys.argv[1])) or {}
    table = open(sys.argv[2]).read()
    named = set(re.findall(r"-> ([a-z_][a-z0-9_.]*)", table))  # a row's target
    for line in table.splitlines():  # a line that starts with keys: "key: ...", "key value, key value: ..."
        line = line.strip()
        line = line[len("note: "):] if line.startswith("note: ") else line
        for part in line.split(":", 1)[0].split(", "):
            word = part.split(" ")[0]
            if re.fullmatch(r"[a-z_][a-z0-9_]*\.[a-z0-9_.]+", word):
                named.add(word)
    missing = [k for k in keys(doc) if k != "extends" and k not in named and not any(n.startswith(k + ".") for n in named)]
    if missing:
        print("not accounted for in the import table: " + ", ".join(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
