#!/usr/bin/env python3
"""Writes a synthetic Finder/iTunes backup folder for the backup benchmark.

    python3 scripts/make-backup.py DIR [FILES]   (default 100,000 files)

The layout the public readers read (mvt-project/mvt src/mvt/ios/modules/backup/manifest.py,
richinfante/iphonebackuptools schemas/manifest-db/): Manifest.db (SQLite, tables Files and
Properties), each file's bytes at XX/FILEID with FILEID the SHA-1 hex of "DOMAIN-RELATIVEPATH",
each row's `file` blob an MBFile in NSKeyedArchiver form (plistlib writes the UIDs), and
Manifest.plist, Info.plist, Status.plist. Only the standard library is used.

The backup: the app com.example.bench (AppDomain-) holds FILES files in Documents, Library/
Application Support and Library/Preferences (one 600 kB preferences plist among them), 40 files
per folder; an extension, an App Group and another app hold 1,000 files each; a system domain
2,000. File bytes are 64 B to 8 KiB (sizes deterministic).
"""
import datetime
import hashlib
import os
import plistlib
import sqlite3
import sys

APP = "com.example.bench"


def mbfile(path, size, mode, inode, target=None):
    objects = ["$null", None, path]
    root = {"$class": plistlib.UID(3), "RelativePath": plistlib.UID(2), "Size": size, "Mode": mode,
            "LastModified": 1_700_000_000, "LastStatusChange": 1_700_000_000, "Birth": 1_699_000_000,
            "InodeNumber": inode, "UserID": 501, "GroupID": 501, "ProtectionClass": 3, "Flags": 0}
    objects.append({"$classname": "MBFile", "$classes": ["MBFile", "NSObject"]})
    if target is not None:
        objects.append(target)
        root["Target"] = plistlib.UID(len(objects) - 1)
    objects[1] = root
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)}, "$objects": objects}
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY)


def new_manifest(out):
    """DIR/Manifest.db made anew (DIR created when missing), its tables empty, open."""
    os.makedirs(out, exist_ok=True)
    db_path = os.path.join(out, "Manifest.db")
    if os.path.exists(db_path):
        os.remove(db_path)
    db = sqlite3.connect(db_path)
    db.execute("CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)")
    db.execute("CREATE INDEX FilesDomainIdx ON Files(domain)")
    db.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
    return db


def write_plists(out, installed):
    """Manifest.plist, Info.plist (listing `installed`) and Status.plist of an unencrypted backup."""
    date = datetime.datetime(2024, 11, 7, 17, 20)
    lockdown = {"DeviceName": "Bench iPhone", "ProductVersion": "17.5.1", "ProductType": "iPhone15,2"}
    for name, value in [
        ("Manifest.plist", {"IsEncrypted": False, "Version": "10.0", "Date": date, "Lockdown": lockdown, "Applications": {}}),
        ("Info.plist", {"Device Name": "Bench iPhone", "Product Version": "17.5.1", "Last Backup Date": date,
                        "Installed Applications": installed}),
        ("Status.plist", {"IsFullBackup": False, "Version": "3.3", "BackupState": "new", "Date": date, "SnapshotState": "finished"}),
    ]:
        with open(os.path.join(out, name), "wb") as f:
            plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    db = new_manifest(out)
    inode = [1000]
    rows = []
    seen = set()

    def add(domain, path, flags, size=0, data=None, target=None):
        if (domain, path) in seen:
            return
        seen.add((domain, path))
        inode[0] += 1
        file_id = hashlib.sha1(f"{domain}-{path}".encode()).hexdigest()
        mode = {1: 0o100644, 2: 0o40755, 4: 0o120755}[flags]
        rows.append((file_id, domain, path, flags, mbfile(path, size, mode, inode[0], target)))
        if flags == 1:
            folder = os.path.join(out, file_id[:2])
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, file_id), "wb") as f:
                f.write(data if data is not None else b"x" * size)
        if len(rows) >= 5000:
            db.executemany("INSERT INTO Files VALUES (?, ?, ?, ?, ?)", rows)
            rows.clear()

    def domain_tree(domain, files, tops):
        add(domain, "", 2)
        made = set()
        for i in range(files):
            top = tops[i % len(tops)]
            folder = f"{top}/d{i // 40 // len(tops):04d}"
            for j in range(1, folder.count("/") + 2):
                part = "/".join(folder.split("/")[:j])
                if part not in made:
                    made.add(part)
                    add(domain, part, 2)
            size = 64 + (i * 7919) % 8128
            add(domain, f"{folder}/f{i:06d}.dat", 1, size)
        add(domain, f"{tops[0]}/latest", 4, len("d0000/f000000.dat"), target="d0000/f000000.dat")

    app = "AppDomain-" + APP
    domain_tree(app, count, ["Documents", "Library/Application Support", "Library/Preferences/store"])
    prefs = plistlib.dumps({"blob": b"\0" * 600_000, "launchCount": 3}, fmt=plistlib.FMT_BINARY)
    add(app, "Library/Preferences", 2)
    add(app, f"Library/Preferences/{APP}.plist", 1, len(prefs), prefs)
    domain_tree(f"AppDomainPlugin-{APP}.widget", 1000, ["Library/Caches-not", "Documents"])
    domain_tree("AppDomainGroup-group.example.bench", 1000, ["Shared"])
    domain_tree("AppDomain-com.example.other", 1000, ["Documents"])
    domain_tree("HomeDomain", 2000, ["Library"])
    db.executemany("INSERT INTO Files VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    write_plists(out, [APP, "com.example.other"])

if __name__ == "__main__":
    main()
