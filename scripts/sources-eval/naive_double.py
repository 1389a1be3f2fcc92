#!/usr/bin/env python3
"""A test double for score.py, and a floor to compare the real feature with.

It stands in for `sandbox-audit` where the binary does not know --sources
yet: `naive_double.py inventory … --sources DIR` runs the real binary
(SANDBOX_AUDIT_BIN, default .build/debug/sandbox-audit) without --sources
and adds to each line a `source` array found the naive way: the lines of
DIR's Swift and Objective-C files holding the entry's last path component
as a whole string literal ("name" or @"name"), else its nearest ancestor
component that some line holds (standard container folders left out), at
most five, in file then line order. It reads no truth and no apps.json.

  SANDBOX_AUDIT_BIN=.build/debug/sandbox-audit \\
    python3 scripts/sources-eval/score.py --bin scripts/sources-eval/naive_double.py
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.environ.get("SANDBOX_AUDIT_BIN", os.path.join(HERE, "..", "..", ".build", "debug", "sandbox-audit"))
EXTENSIONS = (".swift", ".m", ".mm", ".h")
STANDARD = {"Documents", "Library", "Caches", "Application Support", "Preferences", "tmp"}
LITERAL = re.compile(r'@?"((?:[^"\\\n]|\\.)*)"')


def index(root):
    names = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.endswith(EXTENSIONS):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    for number, line in enumerate(handle, 1):
                        for match in LITERAL.finditer(line):
                            names.setdefault(match.group(1), []).append(
                                {"file": rel, "line": number, "column": match.start() + 1})
            except OSError:
                pass
    return names


def candidates(path, names):
    parts = path.split("/")
    for part in reversed(parts):
        if part in STANDARD:
            continue
        found = names.get(part)
        if found:
            seen, result = set(), []
            for c in found:
                if (c["file"], c["line"]) not in seen:
                    seen.add((c["file"], c["line"]))
                    result.append(c)
            return result[:5]
    return []


def main(argv):
    if argv[:1] == ["inventory"] and ("--help" in argv or "-h" in argv):
        result = subprocess.run([REAL] + argv, capture_output=True, text=True)
        sys.stdout.write(result.stdout + "  --sources <DIR>   (naive_double.py: string-literal grep)\n")
        return result.returncode
    if "--sources" not in argv:
        os.execv(REAL, [REAL] + argv)
    at = argv.index("--sources")
    root = argv[at + 1]
    rest = argv[:at] + argv[at + 2:]
    names = index(root)
    result = subprocess.run([REAL] + rest, capture_output=True, text=True)
    sys.stderr.write(result.stderr)
    for line in result.stdout.splitlines():
        entry = json.loads(line)
        entry["source"] = candidates(entry["path"], names)
        print(json.dumps(entry))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
