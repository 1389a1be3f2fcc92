#!/usr/bin/env python3
"""A synthetic app data container for the scan benchmark: FILES regular files (default
200,000) in five zones, 100-200 per folder, sizes mostly small (larger ones sparse), about 2 %
excluded one by one and 8 folders excluded, a few legacy and unrelated attributes, old files in
tmp, hard links and symlinks (one dangling, one leaving the container). Deterministic names.

    make-container.py DIR [FILES]
"""
import os, random, sys, time

root, total = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
rng = random.Random(20240601)
EXCLUDE = "user.com.apple.metadata:com_apple_backup_excludeItem"
LEGACY = "user.com.apple.MobileBackup"
CANONICAL = bytes.fromhex(
    "62706c69737430305f1011636f6d2e6170706c652e6261636b75706408000000000000010100000000000000"
    "010000000000000000000000000000001c")
assert len(CANONICAL) == 61
BLOB = os.urandom(64 * 1024)
now = time.time()

def size_of():
    r = rng.random()
    if r < 0.65: return rng.randint(1, 1024)                # tiny: plists, json, tokens
    if r < 0.95: return rng.randint(1025, 8 * 1024)          # small
    if r < 0.995: return rng.randint(8 * 1024, 64 * 1024)    # medium (first 4 KiB written, rest sparse)
    return rng.randint(64 * 1024, 4 * 1024 * 1024)           # large (sparse)

def write_file(path, size):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        if size <= 8 * 1024:
            os.write(fd, BLOB[:size])
        else:
            os.write(fd, BLOB[:4096])
            os.ftruncate(fd, size)
    finally:
        os.close(fd)

EXT = [".json", ".plist", ".dat", ".db", ".jpg", ".png", ".cache", ".txt", ".bin", ".sqlite-wal"]
all_files, all_dirs = [], []

def grow(path, depth, budget, maxdepth):
    """Fill `path` with `budget` files: ~100-200 per directory, nested up to `maxdepth`."""
    os.makedirs(path, exist_ok=True)
    all_dirs.append((path, depth))
    if budget <= 220 or depth >= maxdepth:
        here = budget
    else:
        here = min(budget, rng.randint(0, 120))
    for i in range(here):
        p = os.path.join(path, "f%05d%s" % (i, rng.choice(EXT)))
        write_file(p, size_of())
        all_files.append((p, depth))
    rest = budget - here
    if rest <= 0:
        return
    children = max(2, min(12, rest // 1500 if depth < maxdepth - 2 else rest // 150))
    cuts = sorted(rng.randint(0, rest) for _ in range(children - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [rest])]
    for j, part in enumerate(parts):
        if part:
            grow(os.path.join(path, "d%02d" % j), depth + 1, part, maxdepth)

zones = [  # (relative path, share of files, nesting below the zone)
    ("Documents", 0.30, 4),
    ("Library/Application Support", 0.25, 4),
    ("Library/Caches", 0.28, 4),
    ("Library/Preferences", 0.002, 1),
    ("tmp", 0.168, 3),
]
budgets = [int(total * share) for _, share, _ in zones]
budgets[0] += total - sum(budgets)
for (rel, _, nest), budget in zip(zones, budgets):
    grow(os.path.join(root, rel), 0, budget, nest)

# Exclusions: a handful of directories, and ~2% of the files one by one.
inner = [d for d, depth in all_dirs if depth >= 1]
for d in rng.sample(inner, min(8, len(inner))):
    os.setxattr(d, EXCLUDE, CANONICAL, follow_symlinks=False)
for p, _ in rng.sample(all_files, len(all_files) // 50):
    os.setxattr(p, EXCLUDE, CANONICAL, follow_symlinks=False)
# A few legacy attributes and unrelated attributes, so the name lists are not all empty.
for p, _ in rng.sample(all_files, min(12, len(all_files))):
    os.setxattr(p, LEGACY, b"\x01", follow_symlinks=False)
for p, _ in rng.sample(all_files, len(all_files) // 200):
    os.setxattr(p, "user.xdg.origin.url", b"https://example.com/x", follow_symlinks=False)

# Old temporary files.
for p, _ in all_files:
    if p.startswith(os.path.join(root, "tmp") + "/") and rng.random() < 0.1:
        t = now - rng.randint(4, 30) * 86400
        os.utime(p, (t, t))

# Hard links and symlinks (to files, to directories, one dangling, one leaving the container).
for i, (p, _) in enumerate(rng.sample(all_files, min(40, len(all_files)))):
    os.link(p, p + ".hardlink%d" % i)
for i, (p, _) in enumerate(rng.sample(all_files, min(30, len(all_files)))):
    os.symlink(os.path.basename(p), os.path.join(os.path.dirname(p), "link%d" % i))
for i, d in enumerate(rng.sample(inner, min(10, len(inner)))):
    parent = os.path.dirname(d)
    os.symlink(os.path.basename(d), os.path.join(parent, "dirlink%d" % i))
os.symlink("does-not-exist", os.path.join(root, "Documents", "dangling"))
os.symlink("/etc/hostname", os.path.join(root, "Documents", "outside"))

print("   %d files, %d directories" % (len(all_files), len(all_dirs)))
