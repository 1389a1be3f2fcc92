#!/usr/bin/env python3
"""Adds rows of unusual shapes to a backup made by scripts/make-backup.py, in the app's domain
(AppDomain-com.example.bench, Documents/odd/), so that a before/after comparison covers every
way an MBFile blob is read: recorded extended attributes (the exclusion attribute among them),
each protection class, a non-ASCII path (a UTF-16 string in the archive), an EncryptionKey as
NSData, a symlink target as NSData, values of another type than an integer, a negative and a
64-bit size, missing keys, keys with inline values, a UID to $null, a blob that is not a plist.

    add-odd-rows.py BACKUP
"""
import hashlib, os, plistlib, sqlite3, sys

DOMAIN = "AppDomain-com.example.bench"
EXCLUDE = "com.apple.metadata:com_apple_backup_excludeItem"


def archive(root, extra=()):
    objects = ["$null", None, {"$classname": "MBFile", "$classes": ["MBFile", "NSObject"]}, *extra]
    root = dict(root)
    root.setdefault("$class", plistlib.UID(2))
    objects[1] = root
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)


def base(path, size=5, mode=0o100644, protection=3):
    return {"RelativePath": plistlib.UID(3), "Size": size, "Mode": mode, "LastModified": 1_700_000_000,
            "LastStatusChange": 1_700_000_000, "Birth": 1_699_000_000, "InodeNumber": 9000, "UserID": 501,
            "GroupID": 501, "ProtectionClass": protection, "Flags": 0}


def main():
    folder = sys.argv[1]
    rows = []

    def add(path, flags, blob, data=b"odd\n"):
        file_id = hashlib.sha1(f"{DOMAIN}-{path}".encode()).hexdigest()
        rows.append((file_id, DOMAIN, path, flags, blob))
        if flags == 1:
            os.makedirs(os.path.join(folder, file_id[:2]), exist_ok=True)
            with open(os.path.join(folder, file_id[:2], file_id), "wb") as f:
                f.write(data)

    nsdata = {"$class": plistlib.UID(5)}
    data_class = {"$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]}
    add("Documents/odd", 2, archive(base("Documents/odd", 0, 0o40755), ["Documents/odd"]))
    for protection in range(1, 8):
        path = f"Documents/odd/class{protection}.txt"
        add(path, 1, archive(base(path, 4, protection=protection), [path]))
    xattrs = plistlib.dumps({EXCLUDE: b"com.apple.backupd", "com.apple.MobileBackup": b"\x01", "user.note": "text"},
                            fmt=plistlib.FMT_BINARY)
    path = "Documents/odd/attributes.db"
    add(path, 1, archive({**base(path, 4), "ExtendedAttributes": plistlib.UID(4)}, [path, {**nsdata, "NS.data": xattrs}, data_class]))
    path = "Documents/odd/bad-attributes.db"
    add(path, 1, archive({**base(path, 4), "ExtendedAttributes": plistlib.UID(4)}, [path, {**nsdata, "NS.data": b"junk"}, data_class]))
    path = "Documents/odd/caf\u00e9 \u65e5\u672c.txt"
    add(path, 1, archive(base(path, 4), [path]))
    path = "Documents/odd/key.bin"
    add(path, 1, archive({**base(path, 4), "EncryptionKey": plistlib.UID(4)}, [path, {**nsdata, "NS.data": b"\x03\x00\x00\x00" + bytes(40)}, data_class]))
    path = "Documents/odd/link"
    add(path, 4, archive({**base(path, 10, 0o120755), "Target": plistlib.UID(4)}, [path, {**nsdata, "NS.data": b"class1.txt"}, data_class]))
    path = "Documents/odd/size-string.txt"
    add(path, 1, archive({**base(path), "Size": "5"}, [path]))
    path = "Documents/odd/size-negative.txt"
    add(path, 1, archive({**base(path), "Size": -5}, [path]))
    path = "Documents/odd/size-huge.txt"
    add(path, 1, archive({**base(path), "Size": 1 << 40}, [path]))
    path = "Documents/odd/mode-real.txt"
    add(path, 1, archive({**base(path), "Mode": 420.0}, [path]))
    path = "Documents/odd/no-keys.txt"
    add(path, 1, archive({"RelativePath": plistlib.UID(3)}, [path]))
    path = "Documents/odd/inline-path.txt"
    add(path, 1, archive({**base(path), "RelativePath": "elsewhere.txt"}, [path]))
    path = "Documents/odd/null-path.txt"
    add(path, 1, archive({**base(path), "RelativePath": plistlib.UID(0)}, [path]))
    add("Documents/odd/not-a-plist.txt", 1, b"not a plist at all")
    db = sqlite3.connect(os.path.join(folder, "Manifest.db"))
    db.executemany("INSERT INTO Files VALUES (?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
