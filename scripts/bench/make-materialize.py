#!/usr/bin/env python3
"""A container for the materialise benchmark: FILES files (default 10,000) of about 100 kB
(1 GB at 10,000), all in zones an update keeps whole (so that `simulate update --into` and
`cp -a` copy the same bytes), one in 50 carrying the backup-exclusion attribute.

    make-materialize.py DIR [FILES]
"""
import os, sys

root = sys.argv[1]
files = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
zones = ["Documents", "Library/Application Support", "Library/Caches", "Library/Preferences", "Library/WebKit"]
EXCLUDE = bytes.fromhex("62706c69737430305f1011636f6d2e6170706c652e6261636b75706408000000000000010100000000000000"
                        "010000000000000000000000000000001c")
block = os.urandom(1 << 20)
for z in zones:
    os.makedirs(os.path.join(root, z), exist_ok=True)
for i in range(files):
    folder = os.path.join(root, zones[i % len(zones)], "d%03d" % (i % 100))
    os.makedirs(folder, exist_ok=True)
    size = 100_000 + (i * 7919) % 9_000
    path = os.path.join(folder, "f%05d.bin" % i)
    with open(path, "wb") as f:
        f.write(block[(i * 4096) % (len(block) - size):][:size])
    if i % 50 == 0:
        os.setxattr(path, "user.com.apple.metadata:com_apple_backup_excludeItem", EXCLUDE)
