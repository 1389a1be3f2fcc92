#!/usr/bin/env bash
# Mutation fuzzing of every parser that reads container input (Linux; not run by CI).
#
# Builds hostile inputs from valid seeds and runs the built binary on each, under a memory and
# a time cap:
#   xattr      the exclude attribute's value (binary/XML plists, reference bombs)
#   sidecar    a ._NAME AppleDouble sidecar (entries, ATTR block, shared ranges)
#   identity   .com.apple.mobile_container_manager.metadata.plist
#   appdatainfo  NAME.xcappdata/AppDataInfo.plist
#   prefs      a Library/Preferences plist (parsed: the policy lowers warningSize)
#   tar        a pax tar with SCHILY.xattr records and a ._NAME member (header bytes mutated)
#   zip        a Finder-style zip with __MACOSX sidecars
#   yaml       the .sandbox-audit.yml policy file
# Commands run: scan (text and markdown), inventory, attributes (and exclude on sidecars).
# A case fails when the binary is killed by a signal or exits other than 0, 1 or 2 (crash),
# runs past --timeout (hang), or its peak RSS passes --budget-mb (over budget); and when
# `exclude --carrier sidecar` rewrites a sidecar losing anything but the exclude attribute. Failing
# inputs are kept in OUT/failures/. Prints the counts; exits 1 when anything failed, 2 on a
# usage error.
#
# Usage: scripts/fuzz.sh [--duration SECONDS] [--seed N] [--out DIR] [--timeout S]
#                        [--budget-mb MB] [--mem-mb MB] [--only TARGET[,TARGET]] [--bin PATH]
#   --duration  total running time (default 120)
#   --seed      random seed (default: time); the same seed replays the same cases
#   --out       work and failure folder (default: a temporary folder, kept only on failure)
#   --timeout   seconds per run before it counts as a hang (default 10)
#   --budget-mb peak RSS per run before it counts as over budget (default 300)
#   --mem-mb    address-space cap per run, so a runaway allocation dies fast (default 4096)
#   --only      restrict to some targets
#   --bin       the binary (default .build/debug/sandbox-audit, built when missing)
set -euo pipefail

duration=120
seed=""
out=""
timeout_s=10
budget=300
mem=4096
only=""
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --timeout) timeout_s="$2"; shift 2 ;;
        --budget-mb) budget="$2"; shift 2 ;;
        --mem-mb) mem="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
if [ -z "$bin" ]; then
    bin=.build/debug/sandbox-audit
    [ -x "$bin" ] || swift build >&2
fi
[ -x "$bin" ] || { echo "fuzz.sh: no binary at $bin" >&2; exit 2; }
command -v python3 >/dev/null || { echo "fuzz.sh: python3 is required" >&2; exit 2; }
[ -n "$seed" ] || seed=$(date +%s)
keep_out=1
if [ -z "$out" ]; then out=$(mktemp -d /tmp/sandbox-audit-fuzz.XXXXXX); keep_out=0; fi
mkdir -p "$out"

set +e
python3 - "$(realpath "$bin")" "$out" "$duration" "$seed" "$timeout_s" "$budget" "$mem" "$only" <<'PY'
import io, os, random, resource, shutil, signal, struct, subprocess, sys, tarfile, time, zipfile

BIN, OUT, DURATION, SEED, TIMEOUT, BUDGET_MB, MEM_MB, ONLY = sys.argv[1:9]
DURATION, SEED, TIMEOUT, BUDGET_MB, MEM_MB = float(DURATION), int(SEED), float(TIMEOUT), int(BUDGET_MB), int(MEM_MB)
rng = random.Random(SEED)
EXCL = "com.apple.metadata:com_apple_backup_excludeItem"
CANONICAL = bytes.fromhex("62706c69737430305f1011636f6d2e6170706c652e6261636b75706408000000000000010100000000000000010000000000000000000000000000001c")

# ---- seeds ---------------------------------------------------------------------------------

def bplist(objects, top=0):
    """objects: list of encoded object bodies (refs already 1 byte)."""
    out = bytearray(b"bplist00"); offs = []
    for o in objects: offs.append(len(out)); out += o
    table = len(out); size = 1 if table < 256 else (2 if table < 65536 else 4)
    for o in offs: out += o.to_bytes(size, "big")
    out += b"\0" * 6 + bytes([size, 1]) + struct.pack(">QQQ", len(objects), top, table)
    return bytes(out)

def ascii_obj(s):
    b = s.encode()
    return (bytes([0x50 | len(b)]) if len(b) < 15 else bytes([0x5F, 0x10, len(b)])) + b

def bplist_dict(pairs):
    # object 0: dict; then keys, then values (strings)
    n = len(pairs)
    objs = [bytes([0xD0 | n]) + bytes(range(1, n + 1)) + bytes(range(n + 1, 2 * n + 1))]
    objs += [ascii_obj(k) for k, _ in pairs] + [ascii_obj(v) for _, v in pairs]
    return bplist(objs)

def bomb(n):
    objs = [bytes([0xA2, i + 1, i + 1]) for i in range(n)] + [b"\x51x"]
    return bplist(objs)

def xml_plist(body):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n' + body + '\n</plist>\n').encode()

def deep_xml(n):
    return xml_plist("<array>" * n + "</array>" * n)

def appledouble(attrs, fork=b"", finder=b"\0" * 32, same_range=0):
    """attrs: list of (name bytes, value bytes). same_range > 0 writes that many entries all
    pointing at the first value."""
    if same_range:
        attrs = [(b"x.%d" % i, b"") for i in range(same_range)]
    names = [n + b"\0" for n, _ in attrs]
    fi_off = 26 + 24
    attr_hdr = fi_off + 32 + 2
    table_end = attr_hdr + 36 + sum((11 + len(n) + 3) & ~3 for n in names)
    data = bytearray(); entries = bytearray()
    shared = b"Q" * 4096
    for (n, v), en in zip(attrs, names):
        if same_range:
            e = struct.pack(">IIH", table_end, len(shared), 0)
        else:
            e = struct.pack(">IIH", table_end + len(data), len(v), 0); data += v
        e += bytes([len(en)]) + en
        while len(e) % 4: e += b"\0"
        entries += e
    if same_range: data = bytearray(shared)
    total = table_end + len(data)
    out = bytearray(struct.pack(">II", 0x00051607, 0x00020000) + b"Mac OS X        " + struct.pack(">H", 2))
    out += struct.pack(">III", 9, fi_off, total - fi_off) + struct.pack(">III", 2, total, len(fork))
    out += finder + b"\0\0" + struct.pack(">IIIII", 0x41545452, 0, total, table_end, len(data)) + b"\0" * 12
    out += struct.pack(">HH", 0, len(attrs)) + entries + data + fork
    return bytes(out)

def sidecar_seed():
    return appledouble([(EXCL.encode(), CANONICAL), (b"com.apple.FinderInfo\xff", b"\1\2\3"),
                        (b"com.apple.MobileBackup", b"\1")], fork=b"R" * 180, finder=b"TEXTttxt" + b"\0" * 24)

VALUE_SEEDS = [CANONICAL, b"com.apple.backupd", xml_plist("<string>com.apple.backupd</string>"),
               xml_plist("<true/>"), bplist_dict([("a", "b")])]
IDENTITY_SEEDS = [bplist_dict([("MCMMetadataIdentifier", "com.example.app"), ("MCMMetadataVersion", "1")]),
                  xml_plist("<dict><key>MCMMetadataIdentifier</key><string>com.example.app</string></dict>")]
INFO_SEEDS = [bplist_dict([("CFBundleIdentifier", "com.example.app"), ("XCExecutableVersion", "1.0")]),
              xml_plist("<dict><key>CFBundleIdentifier</key><string>com.example.app</string></dict>")]
YAML_SEED = b"""failOn: error
rules:
  oversized-backed-up-file:
    size: 10MB
  large-user-defaults:
    warningSize: 1
ignore:
  - "Library/WebKit/**"
paths:
  - path: "Library/Application Support/Downloads"
    backup: excluded
  - path: "Documents/**/*.sqlite"
    backup: included
budgets:
  backup: 50MB
"""

# ---- mutation ------------------------------------------------------------------------------

INTERESTING = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
               0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 26, 50, 82, 4096, 65535]

def mutate(data, rounds=None):
    b = bytearray(data)
    for _ in range(rounds or rng.choice([1, 1, 2, 3, 5, 10])):
        op = rng.randrange(9)
        if not b: b += bytes([rng.randrange(256)])
        i = rng.randrange(len(b))
        if op == 0: b[i] ^= 1 << rng.randrange(8)
        elif op == 1: b[i] = rng.randrange(256)
        elif op in (2, 3):
            w = rng.choice([1, 2, 4, 8]); v = rng.choice(INTERESTING) & ((1 << (8 * w)) - 1)
            b[i:i + w] = v.to_bytes(w, "big")
        elif op == 4: b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 32)))
        elif op == 5: del b[i:i + rng.randrange(1, 64)]
        elif op == 6:
            j = rng.randrange(len(b)); n = rng.randrange(1, 256); b[i:i] = b[j:j + n]
        elif op == 7: del b[rng.randrange(len(b)):]
        else:
            j = rng.randrange(len(b)); b[j:j + 4] = b[i:i + 4]
    return bytes(b)

def mutate_fields(data, fields):
    """Writes interesting values into known header fields: (offset from start, or negative from
    the end, width)."""
    b = bytearray(data)
    for _ in range(rng.choice([1, 1, 2, 3])):
        off, w = rng.choice(fields)
        i = off if off >= 0 else len(b) + off
        if 0 <= i and i + w <= len(b):
            b[i:i + w] = (rng.choice(INTERESTING) & ((1 << (8 * w)) - 1)).to_bytes(w, "big")
    return bytes(b)

# AppleDouble: entry count, the two entries' offset/length, the ATTR header and first entries.
SIDECAR_FIELDS = [(24, 2), (30, 4), (34, 4), (42, 4), (46, 4), (84 + 8, 4), (84 + 12, 4), (84 + 16, 4), (84 + 34, 2),
                  (120, 4), (124, 4), (130, 1), (180, 4), (184, 4)]
# Binary plist trailer: offset size, ref size, object count, top object, table offset.
BPLIST_FIELDS = [(-26, 1), (-25, 1), (-24, 8), (-20, 4), (-16, 8), (-8, 8), (-4, 4), (8, 1), (9, 1)]

def hostile_plist():
    k = rng.randrange(5)
    if k == 0: return bomb(rng.randrange(18, 60))
    if k == 1: return deep_xml(rng.choice([100, 300, 5000, 100000]))
    if k == 2: return xml_plist("<dict>" + "<key>k</key><string>%s</string>" % ("A" * rng.randrange(1, 70000)) + "</dict>")
    if k == 3: return mutate(bomb(rng.randrange(18, 40)))
    return bplist([bytes([0xA1, 0])])  # an array holding itself

def plist_case(seeds):
    r = rng.random()
    if r < 0.25: return hostile_plist()
    seed = rng.choice(seeds)
    if r < 0.45 and seed.startswith(b"bplist"): return mutate_fields(seed, BPLIST_FIELDS)
    return mutate(seed)

# ---- running -------------------------------------------------------------------------------

counts = {"cases": 0, "runs": 0, "crashes": 0, "hangs": 0, "over_budget": 0, "data_loss": 0}
per_target = {}
worst = {"rss_mb": 0.0, "seconds": 0.0}

def limit():
    mem = MEM_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()

def run(args, case_dir, target):
    counts["runs"] += 1
    start = time.monotonic()
    p = subprocess.Popen([BIN] + args, cwd=case_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=limit)
    status = None; rusage = None; hung = False
    while True:
        pid, st, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            status, rusage = st, ru; break
        if time.monotonic() - start > TIMEOUT:
            os.killpg(p.pid, signal.SIGKILL); hung = True
            _, status, rusage = os.wait4(p.pid, 0); break
        time.sleep(0.005)
    elapsed = time.monotonic() - start
    err = p.stderr.read().decode(errors="replace")[-400:]; p.stderr.close()
    rss_mb = rusage.ru_maxrss / 1024.0
    worst["rss_mb"] = max(worst["rss_mb"], rss_mb); worst["seconds"] = max(worst["seconds"], elapsed)
    code = os.waitstatus_to_exitcode(status)
    problem = None
    if hung: problem = "hangs"
    elif code not in (0, 1, 2): problem = "crashes"
    elif rss_mb > BUDGET_MB: problem = "over_budget"
    if problem:
        counts[problem] += 1
        per_target.setdefault(target, {}).setdefault(problem, 0)
        per_target[target][problem] += 1
        keep = os.path.join(OUT, "failures", "%s-%s-%d" % (problem, target, counts["runs"]))
        shutil.copytree(case_dir, keep, symlinks=True)
        with open(os.path.join(keep, "WHY.txt"), "w") as f:
            f.write("args: %r\nexit: %s\nseconds: %.2f\npeak RSS MB: %.1f\nstderr: %s\n" % (args, code, elapsed, rss_mb, err))
        print("FAIL %s %s %r exit=%s %.1fs %.0fMB -> %s" % (problem, target, args, code, elapsed, rss_mb, keep), flush=True)
    return None if problem else code

def container(root, identity=None):
    for d in ("Documents", "Library/Preferences", "Library/Caches", "Library/Application Support", "tmp"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "Documents/f"), "wb") as f: f.write(b"hello")
    if identity is not None:
        with open(os.path.join(root, ".com.apple.mobile_container_manager.metadata.plist"), "wb") as f: f.write(identity)

def scan_all(case, target, path, extra=()):
    run(["scan", path] + list(extra), case, target)
    run(["scan", "--format", "markdown", path] + list(extra), case, target)
    run(["inventory", path], case, target)

def t_xattr(case):
    c = os.path.join(case, "c"); container(c)
    v = plist_case(VALUE_SEEDS)[:65536]
    try: os.setxattr(os.path.join(c, "Documents/f"), "user." + EXCL, v)
    except OSError: return
    scan_all(case, "xattr", "c"); run(["attributes", "c/Documents/f"], case, "xattr")

def parse_appledouble(b):
    """What a rewrite must keep: Finder info, resource fork, other entries, attributes other than
    the backup ones (raw name, value). None when not a plain readable sidecar."""
    try:
        if len(b) < 26 or struct.unpack(">I", b[:4])[0] != 0x00051607: return None
        n = struct.unpack(">H", b[24:26])[0]; out = {"fork": b"", "other": [], "attrs": [], "finder": b"\0" * 32}
        for k in range(n):
            i, o, l = struct.unpack(">III", b[26 + 12 * k:38 + 12 * k])
            if o + l > len(b): return None
            if i == 2: out["fork"] = b[o:o + l]
            elif i == 9:
                if l >= 32: out["finder"] = b[o:o + 32]  # an entry of 0 bytes holds no Finder info
                h = o + 34
                if l >= 34 + 36 and b[h:h + 4] == b"ATTR":
                    p = h + 36
                    for _ in range(struct.unpack(">H", b[h + 34:h + 36])[0]):
                        vo, vl, fl, nl = struct.unpack(">IIHB", b[p:p + 11])
                        name = b[p + 11:p + 11 + nl].rstrip(b"\0")
                        if not name.endswith(b"com.apple.metadata:com_apple_backup_excludeItem"):
                            out["attrs"].append((name, b[vo:vo + vl]))
                        p += (11 + nl + 3) & ~3
            else: out["other"].append((i, b[o:o + l]))
        return out
    except Exception:
        return None

def t_sidecar(case):
    c = os.path.join(case, "c"); container(c)
    r = rng.random()
    if r < 0.15: data = appledouble([], same_range=rng.choice([100, 3000, 65535]))
    elif r < 0.3: data = appledouble([(EXCL.encode(), hostile_plist())])
    elif r < 0.6: data = mutate_fields(sidecar_seed(), SIDECAR_FIELDS)
    else: data = mutate(sidecar_seed())
    with open(os.path.join(c, "Documents/._f"), "wb") as f: f.write(data[:1 << 20])
    scan_all(case, "sidecar", "c"); run(["attributes", "c/Documents/f"], case, "sidecar")
    sidecar = os.path.join(c, "Documents/._f")
    before = open(sidecar, "rb").read()
    if run(["exclude", "--carrier", "sidecar", "c/Documents/f"], case, "sidecar") == 0:
        # The rewrite keeps everything but the exclude attribute (checked when both parse).
        old, new = parse_appledouble(before), parse_appledouble(open(sidecar, "rb").read())
        if old is not None and (new is None or any(old[k] != new[k] for k in ("fork", "other", "attrs", "finder"))):
            counts["data_loss"] += 1
            keep = os.path.join(OUT, "failures", "data_loss-sidecar-%d" % counts["runs"])
            os.makedirs(keep)
            open(os.path.join(keep, "before"), "wb").write(before)
            shutil.copy(sidecar, os.path.join(keep, "after"))
            print("FAIL data_loss sidecar -> %s" % keep, flush=True)
    run(["include", "--carrier", "sidecar", "c/Documents/f"], case, "sidecar")

def t_identity(case):
    c = os.path.join(case, "c"); container(c, plist_case(IDENTITY_SEEDS)); scan_all(case, "identity", "c")

def t_appdatainfo(case):
    pkg = os.path.join(case, "App.xcappdata"); container(os.path.join(pkg, "AppData"))
    with open(os.path.join(pkg, "AppDataInfo.plist"), "wb") as f: f.write(plist_case(INFO_SEEDS))
    scan_all(case, "appdatainfo", "App.xcappdata")

def t_prefs(case):
    c = os.path.join(case, "c"); container(c)
    with open(os.path.join(c, "Library/Preferences/com.example.app.plist"), "wb") as f:
        f.write(plist_case(IDENTITY_SEEDS + VALUE_SEEDS))
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(YAML_SEED)
    run(["scan", "--config", "policy.yml", "c"], case, "prefs")
    run(["simulate", "--config", "policy.yml", "c"], case, "prefs")

def tar_bytes():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for d in ("App/Documents", "App/Library", "App/Library/Preferences"):
            ti = tarfile.TarInfo(d); ti.type = tarfile.DIRTYPE; ti.mode = 0o755; t.addfile(ti)
        v = plist_case(VALUE_SEEDS) if rng.random() < 0.5 else CANONICAL
        ti = tarfile.TarInfo("App/Documents/f"); ti.size = 5
        ti.pax_headers = {"SCHILY.xattr.user." + EXCL: v.decode("latin-1")}
        t.addfile(ti, io.BytesIO(b"hello"))
        sc = sidecar_seed() if rng.random() < 0.6 else appledouble([], same_range=rng.choice([100, 3000]))
        ti = tarfile.TarInfo("App/Documents/._g"); ti.size = len(sc); t.addfile(ti, io.BytesIO(sc))
        ti = tarfile.TarInfo("App/Documents/g"); ti.size = 1; t.addfile(ti, io.BytesIO(b"g"))
        ident = plist_case(IDENTITY_SEEDS)
        ti = tarfile.TarInfo("App/.com.apple.mobile_container_manager.metadata.plist"); ti.size = len(ident)
        t.addfile(ti, io.BytesIO(ident))
    return buf.getvalue()

def t_tar(case):
    data = tar_bytes()
    if rng.random() < 0.7:
        # Mutate within the first few headers mostly.
        b = bytearray(data); n = rng.randrange(1, 8)
        for _ in range(n):
            i = rng.randrange(min(len(b), 512 * 16)); b[i] = rng.randrange(256)
        data = bytes(b) if rng.random() < 0.8 else mutate(data)
    with open(os.path.join(case, "app.tar"), "wb") as f: f.write(data)
    scan_all(case, "tar", "app.tar")

def t_zip(case):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("App/Documents/f", b"hello")
        z.writestr("App/Library/Preferences/p.plist", plist_case(IDENTITY_SEEDS))
        z.writestr("__MACOSX/App/Documents/._f", mutate(sidecar_seed()) if rng.random() < 0.7 else sidecar_seed())
    data = buf.getvalue()
    if rng.random() < 0.6: data = mutate(data)
    with open(os.path.join(case, "app.zip"), "wb") as f: f.write(data)
    scan_all(case, "zip", "app.zip")

def t_yaml(case):
    c = os.path.join(case, "c"); container(c)
    r = rng.random()
    if r < 0.1: y = b"a: &a [1,1,1,1,1,1,1,1,1]\n" + b"".join(b"%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n" % ((bytes([98 + i]), bytes([98 + i])) + (bytes([97 + i]),) * 9) for i in range(9)) + b"rules: *j\n"
    elif r < 0.2: y = b"rules: " + b"[" * rng.choice([1000, 100000]) + b"]" * 10
    elif r < 0.25: y = b"ignore:\n" + b"- " * 50000 + b"x\n"
    else: y = mutate(YAML_SEED)
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(y)
    run(["scan", "--config", "policy.yml", "c"], case, "yaml")

TARGETS = {"xattr": t_xattr, "sidecar": t_sidecar, "identity": t_identity, "appdatainfo": t_appdatainfo,
           "prefs": t_prefs, "tar": t_tar, "zip": t_zip, "yaml": t_yaml}
names = [n for n in TARGETS if not ONLY or n in ONLY.split(",")]
if not names: print("fuzz.sh: no such target: " + ONLY, file=sys.stderr); sys.exit(2)

work = os.path.join(OUT, "work")
deadline = time.monotonic() + DURATION
print("fuzz: seed %d, %ds, targets %s, timeout %ss, budget %d MB, cap %d MB, binary %s"
      % (SEED, DURATION, ",".join(names), TIMEOUT, BUDGET_MB, MEM_MB, BIN), flush=True)
while time.monotonic() < deadline:
    target = names[counts["cases"] % len(names)]
    shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
    counts["cases"] += 1
    per_target.setdefault(target, {}).setdefault("cases", 0)
    per_target[target]["cases"] += 1
    TARGETS[target](work)
    if counts["cases"] % 200 == 0:
        print("fuzz: %d cases, %d runs, %d crashes, %d hangs, %d over budget" %
              (counts["cases"], counts["runs"], counts["crashes"], counts["hangs"], counts["over_budget"]), flush=True)
shutil.rmtree(work, ignore_errors=True)
print("fuzz: done, seed %d: %d cases, %d runs, %d crashes, %d hangs, %d over budget, %d sidecar rewrites losing data; worst run %.2f s, %.0f MB peak RSS"
      % (SEED, counts["cases"], counts["runs"], counts["crashes"], counts["hangs"], counts["over_budget"], counts["data_loss"], worst["seconds"], worst["rss_mb"]))
for t in names:
    print("  %-12s %s" % (t, " ".join("%s=%d" % kv for kv in sorted(per_target.get(t, {}).items()))))
sys.exit(1 if counts["crashes"] + counts["hangs"] + counts["over_budget"] + counts["data_loss"] else 0)
PY
rc=$?
set -e
if [ $rc -eq 0 ] && [ $keep_out -eq 0 ]; then rm -rf "$out"; else echo "fuzz: kept $out"; fi
exit $rc
