#!/usr/bin/env python3
"""Writes a backup folder whose app has many extension domains, or one extension domain with a
long dot-separated name: the cost figures of docs/limits.md ("a backup app's domains").

    python3 scripts/bench/make-domains.py DIR N              N AppDomainPlugin-APP.extK domains
    python3 scripts/bench/make-domains.py DIR 1 --long BYTES one domain APP.a.a.a… of BYTES bytes

Each domain holds its root folder and one 64-byte file; the app (com.example.bench) holds one
file in Documents. The layout is scripts/make-backup.py's (Manifest.db, XX/FILEID, the plists).
"""
import os
import sys

import importlib.util

spec = importlib.util.spec_from_file_location("make_backup", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make-backup.py"))
make_backup = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_backup)

import hashlib

APP = make_backup.APP


def main():
    out, count = sys.argv[1], int(sys.argv[2])
    long_name = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--long" else 0
    db = make_backup.new_manifest(out)
    rows, inode = [], [1000]

    def add(domain, path, flags, size=0):
        inode[0] += 1
        file_id = hashlib.sha1(f"{domain}-{path}".encode()).hexdigest()
        mode = 0o100644 if flags == 1 else 0o40755
        rows.append((file_id, domain, path, flags, make_backup.mbfile(path, size, mode, inode[0])))
        if flags == 1:
            os.makedirs(os.path.join(out, file_id[:2]), exist_ok=True)
            with open(os.path.join(out, file_id[:2], file_id), "wb") as f:
                f.write(b"x" * size)

    app = "AppDomain-" + APP
    add(app, "", 2)
    add(app, "Documents", 2)
    add(app, "Documents/data.bin", 1, 64)
    names = [APP + "." + "a." * ((long_name - len(APP)) // 2) + "x"] if long_name else [f"{APP}.ext{k}" for k in range(count)]
    for name in names:
        domain = "AppDomainPlugin-" + name
        add(domain, "", 2)
        add(domain, "Documents", 2)
        add(domain, "Documents/data.bin", 1, 64)
    db.executemany("INSERT INTO Files VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    make_backup.write_plists(out, [APP])

if __name__ == "__main__":
    main()
