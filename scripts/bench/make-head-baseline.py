#!/usr/bin/env python3
"""The HEAD side of the compare benchmark: a baseline written by `scan --write-baseline` (BASE),
changed the way a pull request changes a container, written back sorted by path bytes as the
tool writes baselines: 2 % of the files grown, 1 % removed, 1 % added, 0.5 % that were excluded
from backup now backed up. Deterministic.

    make-head-baseline.py BASE.json HEAD.json
"""
import json, random, sys

base, head = sys.argv[1], sys.argv[2]
rng = random.Random(20261127)
doc = json.load(open(base))
files = []
for f in doc["files"]:
    r = rng.random()
    if r < 0.01:
        continue                                  # removed
    f = dict(f)
    if r < 0.03:
        f["size"] += rng.randint(1, 64 * 1024)    # grown
        f["mtime"] += 60
    elif r < 0.035 and f.get("excluded"):
        f["excluded"] = False                     # exclusion lost
        f["backedUp"] = True
    files.append(f)
added = rng.sample(doc["files"], len(doc["files"]) // 100)
for i, f in enumerate(added):
    f = dict(f)
    f["path"] = f["path"] + ".new-%d" % i
    f.pop("pathBase64", None)
    files.append(f)
files.sort(key=lambda f: f["path"].encode("utf-8", "surrogateescape"))
doc["files"] = files
doc["backupFootprint"] = sum(f["size"] for f in files if f["backedUp"])
with open(head, "w") as out:
    json.dump(doc, out, indent=2, ensure_ascii=False)
    out.write("\n")
