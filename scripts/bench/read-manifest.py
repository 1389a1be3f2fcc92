#!/usr/bin/env python3
"""The reference for the backup benchmark: reads every Manifest.db row of one app's domains
(AppDomain-APP and AppDomainPlugin-APP.*) the way mvt does (sqlite3 + plistlib, the MBFile at
$objects[1]; mvt-project/mvt src/mvt/ios/modules/backup/manifest.py), and prints one line per
row: domain, path, flags, Size, Mode, LastModified.   Usage: read-manifest.py BACKUP APP"""
import plistlib, sqlite3, sys

folder, app = sys.argv[1], sys.argv[2]
db = sqlite3.connect(f"file:{folder}/Manifest.db?mode=ro", uri=True)
query = "SELECT domain, relativePath, flags, file FROM Files WHERE domain = ? OR domain LIKE ?"
out = sys.stdout
for domain, path, flags, blob in db.execute(query, (f"AppDomain-{app}", f"AppDomainPlugin-{app}.%")):
    size = mode = modified = None
    if blob:
        archive = plistlib.loads(blob)
        mbfile = archive["$objects"][archive["$top"]["root"].data]
        size, mode, modified = mbfile.get("Size"), mbfile.get("Mode"), mbfile.get("LastModified")
    out.write(f"{domain}\t{path}\t{flags}\t{size}\t{mode}\t{modified}\n")
