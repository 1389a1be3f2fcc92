#!/usr/bin/env python3
"""A pax tar archive for the archive benchmark: MEMBERS regular files (default 100,000), 10 to
30 kB each (about 2 GB at 100,000), in five zones, one in 40 carrying the backup-exclusion
attribute as a SCHILY.xattr pax header.

    make-tar.py ARCHIVE [MEMBERS]
"""
import io, os, sys, tarfile

members = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
zones = ["Documents", "Library/Application Support", "Library/Caches", "Library/Preferences", "tmp"]
block = os.urandom(1 << 20)
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    for i in range(members):
        zone = zones[i % 5]
        size = 10_000 + (i * 7919) % 20_000          # 20 kB on average: 2 GB in all
        info = tarfile.TarInfo("App/%s/d%03d/f%06d.bin" % (zone, (i // 5) % 500, i))
        info.size = size
        if i % 40 == 0:
            info.pax_headers = {"SCHILY.xattr.user.com.apple.metadata:com_apple_backup_excludeItem": "com.apple.backupd"}
        off = (i * 4096) % (len(block) - size)
        t.addfile(info, io.BytesIO(block[off:off + size]))
