#!/usr/bin/env python3
"""Mutation fuzzing of every parser that reads input, and of the commands that act on it (Linux;
not run by CI).

Builds hostile inputs from valid seeds and runs the built binary on each, under a memory and a
time cap. `--list-targets` lists the targets; `--coverage` prints, as JSON, which subcommands,
report formats and policy file sections each target exercises (declared beside each target, in
its @target dict), without the binary.

A case fails when the binary is killed by a signal or exits other than 0, 1 or 2 (crash), runs
past --timeout (hang: killed then), or its peak RSS passes --budget-mb (over budget); when a
rewrite loses data (data_loss: `exclude --carrier sidecar` losing anything but the exclude
attribute; exclude or include changing an item's bytes or a ._NAME that is not AppleDouble);
when xcode, github, codeclimate or sarif output holds a raw ESC or a bidirectional control
(U+202A-U+202E, U+2066-U+2069) from a name (raw-control), or a line a name began
(line-injection); and when `config show`'s output, given back to it, does not print the same
(roundtrip). Failing inputs are kept in OUT/failures/KIND-TARGET-RUN (with WHY.txt: the command,
exit, time, memory, the input, and how to replay the case; STDOUT when the output was checked).
A target whose tool is missing (Python's sqlite3 or cryptography, user extended attributes) is
skipped, and the run says so. Prints the counts per failure kind and per target; exits 1 when
anything failed, 2 on a usage error. The same seed, with the same targets, replays the same
cases (--cases N stops after the Nth).

scripts/fuzz.sh is the wrapper to use: it builds the binary when missing and makes a temporary
OUT, kept only on failure.
"""
import argparse, gzip, hashlib, io, itertools, json, lzma, os, plistlib, random, resource, shutil, signal, struct, subprocess, sys, tarfile, time, zipfile
try:
    import sqlite3
except ImportError:
    sqlite3 = None
try:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.keywrap import aes_key_wrap
except ImportError:
    Cipher = None

# Set by main() from the command line.
BIN = OUT = None
DURATION = TIMEOUT = 0.0
SEED = BUDGET_MB = MEM_MB = 0
# GNU time measures each run's own peak memory (see run()); without it, the child's
# ru_maxrss, which counts this harness's memory at the fork too.
GNU_TIME = None
rng = random.Random()

# The targets, in the order the run takes them, each declared by a dict beside its function:
# name; about (what it builds, for --list-targets and fuzz.sh --help); and what it exercises, for
# --coverage: subcommands (as `sandbox-audit NAME` spells them), formats (scan's report formats,
# ReportFormat, rendered through scan --format or --output) and policySections (the policy file's
# top-level keys its policy files hold).
TARGETS = {}

def target(declaration):
    def register(function):
        TARGETS[declaration["name"]] = dict(declaration, run=function)
        return function
    return register
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
    if k == 4 and rng.random() < 0.5:
        # Markers Foundation cannot bridge (a set crashes it on Linux), or no writer emits.
        return bplist([bytes([rng.choice([0xC1, 0xB1, 0xA1]), 1]), bytes([rng.choice([0x10, 0x00, 0x0F, 0x20, 0x72, 0x8F, 0xC0]), 1])])
    return bplist([bytes([0xA1, 0])])  # an array holding itself

def plist_case(seeds):
    r = rng.random()
    if r < 0.25: return hostile_plist()
    seed = rng.choice(seeds)
    if r < 0.45 and seed.startswith(b"bplist"): return mutate_fields(seed, BPLIST_FIELDS)
    return mutate(seed)

# ---- running -------------------------------------------------------------------------------

# The kinds of failure, as counted, printed and named in OUT/failures/KIND-TARGET-RUN. Besides a
# crash, a hang and a run over budget: data_loss (a rewrite lost something it had to keep),
# raw-control (a machine-read format, xcode, github, codeclimate or sarif, carries a raw ESC or a
# bidirectional control, U+202A-U+202E or U+2066-U+2069, from a name), line-injection (a name
# starts a line of its own in xcode or github output), roundtrip (config show's output, given
# back to config show, does not give the same output).
FAILURE_KINDS = ["crashes", "hangs", "over_budget", "data_loss", "raw-control", "line-injection", "roundtrip"]
counts = dict({"cases": 0, "runs": 0}, **{k: 0 for k in FAILURE_KINDS})
per_target = {}
worst = {"rss_mb": 0.0, "seconds": 0.0}
# What WHY.txt says to replay a case: the targets run, in order, and the case number.
replay = {"names": [], "case": 0}

def limit():
    mem = MEM_MB * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()

def keep_case(case_dir, keep):
    """Copies a failing case: cp -a recreates FIFOs (copytree would block opening one) and
    keeps sparse files sparse; without cp, special files are left out."""
    os.makedirs(os.path.dirname(keep), exist_ok=True)
    if shutil.which("cp") and subprocess.call(["cp", "-a", "--sparse=always", case_dir, keep], stderr=subprocess.DEVNULL) == 0:
        return
    shutil.rmtree(keep, ignore_errors=True)
    import stat as st
    shutil.copytree(case_dir, keep, symlinks=True, ignore_dangling_symlinks=True,
                    ignore=lambda d, names: [n for n in names if not (os.path.islink(os.path.join(d, n)) or
                                             st.S_ISREG(os.lstat(os.path.join(d, n)).st_mode) or os.path.isdir(os.path.join(d, n)))])

def record_failure(problem, target, case_dir, text, stdout=None):
    """Counts a failure and keeps its case in OUT/failures/PROBLEM-TARGET-RUN with WHY.txt (text,
    then how to replay it) and, when there is one, the run's standard output (STDOUT)."""
    counts[problem] += 1
    per_target.setdefault(target, {}).setdefault(problem, 0)
    per_target[target][problem] += 1
    keep = os.path.join(OUT, "failures", "%s-%s-%d" % (problem, target, counts["runs"]))
    keep_case(case_dir, keep)
    with open(os.path.join(keep, "WHY.txt"), "w") as f:
        f.write(text + "replay: scripts/fuzz.py --bin BIN --out DIR --seed %d --only %s --cases %d (case %d of the run)\n"
                % (SEED, ",".join(replay["names"]), replay["case"], replay["case"]))
    if stdout is not None:
        with open(os.path.join(keep, "STDOUT"), "wb") as f: f.write(stdout)
    return keep

def feed(pipe, source):
    """Writes source (bytes, or an iterable of byte chunks: an endless stream) into the run's
    standard input until it ends or the run stops reading."""
    try:
        if isinstance(source, (bytes, bytearray)):
            data = source
            source = (data[i:i + (1 << 20)] for i in range(0, len(data), 1 << 20))
        for chunk in source: pipe.write(chunk)
    except (BrokenPipeError, OSError, ValueError):
        pass
    finally:
        try: pipe.close()
        except OSError: pass

def wait_for_binary():
    """The binary may be rebuilt while the fuzzer runs: waits (20 minutes at most) until it is
    there, executable, and unchanged for 3 seconds."""
    for _ in range(1200):
        try:
            if os.access(BIN, os.X_OK) and time.time() - os.stat(BIN).st_mtime > 3: return
        except OSError:
            pass
        time.sleep(1)

def run(args, case_dir, target, stdin=None, env=None, cwd=None, check=None, what=None, retry=True):
    """Runs the binary with args in case_dir (or cwd, inside it) and records a failure.
    stdin: None (no input), bytes or an iterable of byte chunks (piped, as a pipe gives them),
    or ("file", PATH) (that file as standard input). env: variables to set (None: unset).
    check(stdout bytes, cwd): after a run that did not fail otherwise, the failures its output
    shows, as (kind, why) pairs; standard output is kept only when check is given.
    what: a description of the input, for WHY.txt. Returns the exit code, None on a failure.
    A run that could not start the binary (126, 127: being rebuilt) is run again once it is back."""
    wait_for_binary()
    counts["runs"] += 1
    per_target.setdefault(target, {}).setdefault("runs", 0)
    per_target[target]["runs"] += 1
    cwd = cwd or case_dir
    start = time.monotonic()
    # The run's own peak memory, through GNU time: the child forked here starts as a copy of
    # this harness (which may hold hundreds of MB of a generated archive), and Linux carries that
    # peak across exec into the child's ru_maxrss; the binary GNU time forks starts clean.
    rss_file = os.path.join(OUT, "rss.txt")
    if os.path.exists(rss_file): os.remove(rss_file)
    prefix = [GNU_TIME, "-f", "%M", "-o", rss_file] if GNU_TIME else []
    # Standard error into a file, not a pipe read after the run: a run that writes more than a
    # pipe holds (an incomplete scan's banner naming long paths) would block on it and read as
    # a hang. Standard output too, when it is checked.
    err_file = open(os.path.join(OUT, "stderr.txt"), "w+b")
    out_file = open(os.path.join(OUT, "stdout.bin"), "w+b") if check else subprocess.DEVNULL
    environment = None
    if env:
        environment = dict(os.environ)
        for k, v in env.items():
            if v is None: environment.pop(k, None)
            else: environment[k] = v
    stdin_file = None
    if stdin is None: child_in = subprocess.DEVNULL
    elif isinstance(stdin, tuple): stdin_file = child_in = open(stdin[1], "rb")
    else: child_in = subprocess.PIPE
    p = subprocess.Popen(prefix + [BIN] + args, cwd=cwd, stdin=child_in, stdout=out_file,
                         stderr=err_file, preexec_fn=limit, env=environment)
    feeder = None
    if child_in is subprocess.PIPE:
        import threading
        feeder = threading.Thread(target=feed, args=(p.stdin, stdin), daemon=True); feeder.start()
    status = None; rusage = None; hung = False
    while True:
        pid, st, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            status, rusage = st, ru; break
        if time.monotonic() - start > TIMEOUT:
            os.killpg(p.pid, signal.SIGKILL); hung = True
            _, status, rusage = os.wait4(p.pid, 0); break
        time.sleep(0.005)
    p.returncode = 0  # reaped above; keeps Popen from waiting again
    if feeder: feeder.join(5)
    if stdin_file: stdin_file.close()
    elapsed = time.monotonic() - start
    err_file.seek(0); err = err_file.read().decode(errors="replace"); err_file.close()
    stdout = None
    if check:
        out_file.seek(0); stdout = out_file.read(); out_file.close()
    # The reason first (a runtime failure names it on one line), then the start of the rest.
    reason = [l for l in err.splitlines() if "runtime failure" in l or "Fatal error" in l or l.startswith("sandbox-audit: error")]
    err = "\n".join(reason[:2] + [err[:3000]])
    rss_mb = rusage.ru_maxrss / 1024.0
    try:
        with open(rss_file) as f:
            # The last line is %M; before it, "Command exited with non-zero status N" or
            # "Command terminated by signal N".
            rss_mb = int(f.read().split()[-1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    worst["rss_mb"] = max(worst["rss_mb"], rss_mb); worst["seconds"] = max(worst["seconds"], elapsed)
    code = os.waitstatus_to_exitcode(status)
    if code in (126, 127) and not hung and retry:
        counts["runs"] -= 1; per_target[target]["runs"] -= 1
        time.sleep(2)
        return run(args, case_dir, target, stdin, env, cwd, check, what, retry=False)
    problems = []
    if hung: problems.append(("hangs", ""))
    elif code not in (0, 1, 2): problems.append(("crashes", ""))
    elif rss_mb > BUDGET_MB: problems.append(("over_budget", ""))
    elif check:
        problems += check(stdout, cwd)
    context = ""
    if env: context += "environment: %r\n" % env
    if cwd != case_dir: context += "working directory: %s\n" % os.path.relpath(cwd, case_dir)
    if what: context += "input: %s\n" % what
    merged = {}
    for problem, why in problems: merged.setdefault(problem, []).append(why)
    problems = [(k, "; ".join(w for w in whys if w)) for k, whys in merged.items()]
    for problem, why in problems:
        keep = record_failure(problem, target, case_dir,
                              "args: %r\n%sexit: %s\nseconds: %.2f\npeak RSS MB: %.1f\n%sstderr: %s\n"
                              % (args, context, code, elapsed, rss_mb, ("found: %s\n" % why) if why else "", err), stdout)
        shown_args = repr(args)
        if len(shown_args) > 300: shown_args = shown_args[:300] + "…"
        print("FAIL %s %s %s exit=%s %.1fs %.0fMB -> %s%s" % (problem, target, shown_args, code, elapsed, rss_mb, keep,
                                                             (" (" + reason[0].strip() + ")") if reason and not why else (" (" + why[:200] + ")" if why else "")), flush=True)
    return None if problems else code

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

@target({"name": "xattr",
         "about": "the exclude attribute's value (binary/XML plists, reference bombs)",
         "subcommands": ["scan", "inventory", "attributes"], "formats": ["text", "markdown"], "policySections": []})
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

@target({"name": "sidecar",
         "about": "a ._NAME AppleDouble sidecar (entries, ATTR block, shared ranges); exclude and include --carrier sidecar rewrite it (a rewrite must keep everything but the attribute)",
         "subcommands": ["scan", "inventory", "attributes", "exclude", "include"], "formats": ["text", "markdown"], "policySections": []})
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

@target({"name": "identity",
         "about": ".com.apple.mobile_container_manager.metadata.plist",
         "subcommands": ["scan", "inventory"], "formats": ["text", "markdown"], "policySections": []})
def t_identity(case):
    c = os.path.join(case, "c"); container(c, plist_case(IDENTITY_SEEDS)); scan_all(case, "identity", "c")

@target({"name": "appdatainfo",
         "about": "NAME.xcappdata/AppDataInfo.plist",
         "subcommands": ["scan", "inventory"], "formats": ["text", "markdown"], "policySections": []})
def t_appdatainfo(case):
    pkg = os.path.join(case, "App.xcappdata"); container(os.path.join(pkg, "AppData"))
    with open(os.path.join(pkg, "AppDataInfo.plist"), "wb") as f: f.write(plist_case(INFO_SEEDS))
    scan_all(case, "appdatainfo", "App.xcappdata")

@target({"name": "prefs",
         "about": "a Library/Preferences plist (parsed: the policy lowers warningSize)",
         "subcommands": ["scan", "simulate"], "formats": ["text"], "policySections": ["failOn", "rules", "ignore", "paths", "budgets"]})
def t_prefs(case):
    c = os.path.join(case, "c"); container(c)
    with open(os.path.join(c, "Library/Preferences/com.example.app.plist"), "wb") as f:
        f.write(plist_case(IDENTITY_SEEDS + VALUE_SEEDS))
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(YAML_SEED)
    run(["scan", "--config", "policy.yml", "c"], case, "prefs")
    run(["simulate", "all", "--config", "policy.yml", "c"], case, "prefs")

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

@target({"name": "tar",
         "about": "a pax tar with SCHILY.xattr records and a ._NAME member (header bytes mutated)",
         "subcommands": ["scan", "inventory"], "formats": ["text", "markdown"], "policySections": []})
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

@target({"name": "zip",
         "about": "a Finder-style zip with __MACOSX sidecars",
         "subcommands": ["scan", "inventory"], "formats": ["text", "markdown"], "policySections": []})
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

@target({"name": "yaml",
         "about": "the .sandbox-audit.yml policy file (mutated, alias bombs, deep nesting, long lists)",
         "subcommands": ["scan"], "formats": ["text"], "policySections": ["failOn", "rules", "ignore", "paths", "budgets"]})
def t_yaml(case):
    c = os.path.join(case, "c"); container(c)
    r = rng.random()
    if r < 0.1: y = b"a: &a [1,1,1,1,1,1,1,1,1]\n" + b"".join(b"%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n" % ((bytes([98 + i]), bytes([98 + i])) + (bytes([97 + i]),) * 9) for i in range(9)) + b"rules: *j\n"
    elif r < 0.2: y = b"rules: " + b"[" * rng.choice([1000, 100000]) + b"]" * 10
    elif r < 0.25: y = b"ignore:\n" + b"- " * 50000 + b"x\n"
    else: y = mutate(YAML_SEED)
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(y)
    run(["scan", "--config", "policy.yml", "c"], case, "yaml")

GLOB_PIECES = ["*", "**", "?", "a", "b", "[ab]", "[!a]", "[a-c]", "*a*", "[", "]", "d", "Documents", "Library", "x" * 300]

def random_glob():
    if rng.random() < 0.2:
        return "Documents/" + "*a" * rng.randrange(1, 40) + "*c*b"
    if rng.random() < 0.2:
        return "/".join(rng.choice(["**", "d", "*"]) for _ in range(rng.randrange(1, 12))) + "/x"
    return "/".join("".join(rng.choice(GLOB_PIECES) for _ in range(rng.randrange(1, 4))) for _ in range(rng.randrange(1, 6)))

@target({"name": "glob",
         "about": "the policy's globs in every key (ignore, paths, budgets.paths, owners, protection): random stars, `**`, sets and long patterns, aliased many times, on long names and deep chains",
         "subcommands": ["scan"], "formats": ["text", "json"], "policySections": ["ignore", "paths", "budgets", "owners", "protection"]})
def t_glob(case):
    c = os.path.join(case, "c"); container(c)
    with open(os.path.join(c, "Documents", "a" * rng.choice([50, 201, 255])), "wb") as f: f.write(b"x")
    d = os.path.join(c, "Library")
    for _ in range(rng.choice([10, 200, 600])): d = os.path.join(d, "d")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f"), "wb") as f: f.write(b"y")
    q = lambda g: '"' + g.replace("\\", "\\\\").replace('"', '\\"') + '"'
    globs = [random_glob() for _ in range(rng.randrange(1, 8))]
    y = "ignore:\n" + "".join("  - &g%d %s\n" % (i, q(g)) for i, g in enumerate(globs))
    if rng.random() < 0.3:
        y += "".join("  - *g%d\n" % rng.randrange(len(globs)) for _ in range(rng.choice([10, 1000, 5000])))
    y += "paths:\n" + "".join("  - {path: %s, forbidden: true}\n  - {path: %s, maxSize: 1B}\n" % (q(g), q(g)) for g in globs)
    y += "budgets:\n  paths:\n" + "".join("    - {path: %s, max: 1B}\n" % q(g) for g in globs)
    y += "owners:\n" + "".join("  %s: team%d\n" % (q(g), i) for i, g in enumerate(globs))
    y += "protection:\n" + "".join("  %s: complete\n" % q(g) for g in globs)
    b = y.encode()
    if rng.random() < 0.2: b = mutate(b)
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(b)
    run(["scan", "--config", "policy.yml", "c"], case, "glob")
    run(["scan", "--format", "json", "--config", "policy.yml", "c"], case, "glob")

# ---- backup folders, device folders, simulate, huge sizes, deep archives -------------------

APP = "com.example.app"
GROUP = "group.com.example.shared"
EVENTS = ["update", "restore", "purge"]

def mbfile(path, size, mode, inode, target=None, key=None, protection=3):
    # A plist holds Unicode only: a path of bytes that are not UTF-8 (surrogate escapes) is
    # written there with U+FFFD, and as its raw bytes in the row.
    shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    objects = ["$null", None, {"$classname": "MBFile", "$classes": ["MBFile", "NSObject"]}, shown]
    root = {"$class": plistlib.UID(2), "RelativePath": plistlib.UID(3), "Size": size, "Mode": mode,
            "LastModified": 1_700_000_000, "LastStatusChange": 1_700_000_000, "Birth": 1_699_000_000,
            "InodeNumber": inode, "UserID": 501, "GroupID": 501, "ProtectionClass": protection, "Flags": 0}
    if target is not None:
        root["Target"] = plistlib.UID(len(objects)); objects.append(target)
    if key is not None:
        root["EncryptionKey"] = plistlib.UID(len(objects))
        objects.append({"NS.data": key, "$class": plistlib.UID(len(objects) + 1)})
        objects.append({"$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]})
    objects[1] = root
    return plistlib.dumps({"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
                           "$objects": objects}, fmt=plistlib.FMT_BINARY)

def backup_rows():
    """(domain, path, flags, bytes, target) of a small app backup: app, extension, group."""
    rows = []
    for domain, files in [("AppDomain-" + APP, ["Documents/a.txt", "Documents/db.sqlite", "Library/Preferences/%s.plist" % APP,
                                                "Library/Application Support/blob"]),
                          ("AppDomainPlugin-%s.widget" % APP, ["Documents/w"]), ("AppDomainGroup-" + GROUP, ["Shared/s"])]:
        dirs = set([""])
        for f in files:
            parts = f.split("/")
            for i in range(1, len(parts)): dirs.add("/".join(parts[:i]))
        for d in sorted(dirs): rows.append([domain, d, 2, b"", None])
        for f in files: rows.append([domain, f, 1, (b"SQLite format 3\0" if f.endswith("sqlite") else b"data ") * rng.randrange(1, 40), None])
        rows.append([domain, "Documents/link", 4, b"", "a.txt"])
    return rows

class Encryptor:
    """An encrypted backup's keys as iOS makes them (RFC 3394 wrapped class keys, a TLV
    BackupKeyBag, AES-256-CBC with a zero IV): see Tests/SandboxAuditTests/Support/BackupEncryptor.swift."""
    def __init__(self, password=b"fuzz"):
        self.sha256_salt, self.sha1_salt = os.urandom(20), os.urandom(20)
        secret = hashlib.pbkdf2_hmac("sha256", password, self.sha256_salt, 10, 32)
        pkey = hashlib.pbkdf2_hmac("sha1", secret, self.sha1_salt, 10, 32)
        rec = lambda tag, v: tag + struct.pack(">I", len(v)) + v
        u32 = lambda n: struct.pack(">I", n)
        bag = rec(b"VERS", u32(5)) + rec(b"TYPE", u32(1)) + rec(b"UUID", os.urandom(16)) + rec(b"HMCK", os.urandom(40))
        bag += rec(b"WRAP", u32(0)) + rec(b"SALT", self.sha1_salt) + rec(b"ITER", u32(10))
        bag += rec(b"DPWT", u32(1)) + rec(b"DPIC", u32(10)) + rec(b"DPSL", self.sha256_salt)
        self.keys = {}
        for c in range(1, 12):
            k = os.urandom(32); self.keys[c] = k
            bag += rec(b"UUID", os.urandom(16)) + rec(b"CLAS", u32(c)) + rec(b"WRAP", u32(3 if c == 4 else 2))
            bag += rec(b"KTYP", u32(0)) + rec(b"WPKY", aes_key_wrap(pkey, k))
        self.keybag = bag
        self.manifest_key = os.urandom(32)
        self.manifest_key_bytes = struct.pack("<I", 3) + aes_key_wrap(self.keys[3], self.manifest_key)

    @staticmethod
    def cbc(data, key):
        pad = 16 - len(data) % 16
        e = Cipher(algorithms.AES(key), modes.CBC(b"\0" * 16)).encryptor()
        return e.update(data + bytes([pad]) * pad) + e.finalize()

    def file(self, data):
        k = os.urandom(32)
        return self.cbc(data, k), struct.pack("<I", 3) + aes_key_wrap(self.keys[3], k)

def write_backup(folder, rows, enc=None, sql=None, size_of=None, blob_of=None, info=None):
    """Writes rows as a backup folder. sql: statements run after the rows (a view, a trigger
    …); size_of(i, row) / blob_of(i, row, blob): hostile MBFile sizes and blobs."""
    os.makedirs(folder, exist_ok=True)
    dbp = os.path.join(folder, "Manifest.db")
    db = sqlite3.connect(dbp)
    db.execute("CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)")
    db.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
    for i, (domain, path, flags, data, target) in enumerate(rows):
        fid = hashlib.sha1(("%s-%s" % (domain, path)).encode("utf-8", "surrogateescape")).hexdigest()
        key = None
        if flags == 1:
            stored = data
            if enc: stored, key = enc.file(data)
            os.makedirs(os.path.join(folder, fid[:2]), exist_ok=True)
            with open(os.path.join(folder, fid[:2], fid), "wb") as f: f.write(stored)
        size = size_of(i, rows[i]) if size_of else len(data)
        mode = {1: 0o100644, 2: 0o40755, 4: 0o120755}.get(flags, 0o100644)
        blob = mbfile(path, size, mode, 1000 + i, target, key)
        if blob_of: blob = blob_of(i, rows[i], blob)
        try:
            # CAST(bytes AS TEXT) stores the path's bytes as they are, UTF-8 or not.
            db.execute("INSERT OR REPLACE INTO Files VALUES (?, ?, CAST(? AS TEXT), ?, ?)",
                       (fid, domain, path.encode("utf-8", "surrogateescape"), flags, blob))
        except (sqlite3.Error, ValueError, UnicodeEncodeError):
            pass
    for s in sql or []:
        try: db.executescript(s)
        except sqlite3.Error: pass
    db.commit(); db.close()
    if enc:
        with open(dbp, "rb") as f: plain = f.read()
        with open(dbp, "wb") as f: f.write(enc.cbc(plain, enc.manifest_key))
    manifest = {"IsEncrypted": enc is not None, "Version": "10.0", "Date": __import__("datetime").datetime(2024, 11, 7),
                "Lockdown": {"DeviceName": "Fuzz iPhone", "ProductVersion": "17.5.1", "ProductType": "iPhone15,2"}, "Applications": {}}
    if enc: manifest.update({"BackupKeyBag": enc.keybag, "ManifestKey": enc.manifest_key_bytes})
    with open(os.path.join(folder, "Manifest.plist"), "wb") as f: plistlib.dump(manifest, f, fmt=plistlib.FMT_BINARY)
    with open(os.path.join(folder, "Info.plist"), "wb") as f:
        f.write(info if info is not None else plistlib.dumps({"Device Name": "Fuzz iPhone", "Installed Applications": [APP]}, fmt=plistlib.FMT_BINARY))
    with open(os.path.join(folder, "Status.plist"), "wb") as f:
        plistlib.dump({"IsFullBackup": False, "Version": "3.3", "SnapshotState": "finished"}, f, fmt=plistlib.FMT_BINARY)

HUGE_SIZES = [2**63 - 1, 2**62, 2**63 - 2, -1, -(2**63), 2**32, 2**53 + 1]

def backup_commands(case, target, folder, extra=()):
    a = ["--app", APP, "--app-group", GROUP] + list(extra)
    run(["scan", folder] + a, case, target)
    run(["inventory", folder] + a, case, target)
    run(["simulate", rng.choice(EVENTS + ["all"]), folder] + a, case, target)
    if rng.random() < 0.3:
        c = os.path.join(case, "c"); container(c)
        run(["scan", "c", "--against-backup", folder, "--app", APP] + list(extra), case, target)

def build_backup(case):
    """A backup folder `b`, hostile in one way (t_backup, apps)."""
    rows = backup_rows(); sql = []; size_of = blob_of = None; info = None
    k = rng.randrange(9)
    if k == 0:  # mutated rows: paths with NUL, bad UTF-8, climbing, huge; flags; domains
        for r in rng.sample(rows, rng.randrange(1, 4)):
            r[1] = rng.choice([r[1] + "\0tail", r[1] + "/../../x", "/" + r[1], r[1] + "\udcff", "a/" * 3000, "x" * 70000, "", "."])
            if rng.random() < 0.3: r[2] = rng.choice([0, 3, 8, 255, -1, 2**62])
            if rng.random() < 0.2: r[0] = rng.choice(["", "AppDomain-", "AppDomain-" + APP + "\0x", "AppDomainGroup-" + GROUP * 50])
    elif k == 1:  # sizes near 2^63
        size_of = lambda i, r: rng.choice(HUGE_SIZES) if r[2] == 1 else 0
    elif k == 2:  # mutated MBFile blobs
        blob_of = lambda i, r, b: (mutate(b) if rng.random() < 0.7 else mutate_fields(b, BPLIST_FIELDS)) if rng.random() < 0.5 else b
    elif k == 3:  # hostile plists as blobs
        blob_of = lambda i, r, b: hostile_plist() if rng.random() < 0.3 else b
    elif k == 4:  # Files is a view: recursive, or rows of huge strings
        n = rng.choice([10**5, 10**7, 10**9])
        sql = ["ALTER TABLE Files RENAME TO F0;",
               rng.choice(["CREATE VIEW Files AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
                           "SELECT printf('%%040x', i) AS fileID, 'AppDomain-%s' AS domain, 'Documents/f' || i AS relativePath, "
                           "1 AS flags, NULL AS file FROM r;" % APP,
                           "CREATE VIEW Files AS SELECT fileID, domain, relativePath || substr(hex(zeroblob(%d)), 1) AS relativePath, "
                           "flags, file FROM F0;" % min(n, 10**8),
                           "CREATE VIEW Files AS SELECT fileID, domain, relativePath, flags, zeroblob(%d) AS file FROM F0;" % n])]
    elif k == 5:  # huge strings in the table itself, a trigger, a second Files in another case
        sql = ["UPDATE Files SET relativePath = relativePath || substr(hex(zeroblob(%d)), 1) WHERE rowid %% 3 = 0;" % rng.choice([10**4, 10**6]),
               "CREATE TABLE IF NOT EXISTS files (x);"]
    elif k == 6:  # Info.plist and friends
        info = plist_case(INFO_SEEDS)
    write_backup(os.path.join(case, "b"), rows, sql=sql, size_of=size_of, blob_of=blob_of, info=info)
    dbp = os.path.join(case, "b", "Manifest.db")
    if k == 7:  # the database file's bytes
        data = open(dbp, "rb").read()
        open(dbp, "wb").write(mutate(data) if rng.random() < 0.7 else mutate_fields(data, [(16, 2), (28, 4), (32, 4), (44, 4), (52, 4), (56, 4), (100, 1), (103, 2), (105, 2)]))
    elif k == 8:  # not a file: a symlink, a folder, a FIFO, a sparse giant
        os.remove(dbp); kind = rng.randrange(4)
        if kind == 0: os.symlink("/dev/zero", dbp)
        elif kind == 1: os.mkdir(dbp)
        elif kind == 2 and hasattr(os, "mkfifo"): os.mkfifo(dbp)
        else:
            with open(dbp, "wb") as f: f.truncate(rng.choice([2**31, 2**40]))

@target({"name": "backup",
         "about": "a backup folder: mutated Files rows (NUL, non-UTF-8, climbing, huge paths, flags, domains), MBFile blobs (mutated, hostile plists, Size near 2^63), Manifest.db bytes, Files as a view (recursive, huge strings), Manifest.db a symlink/folder/FIFO/sparse",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text"], "policySections": []})
def t_backup(case):
    build_backup(case)
    backup_commands(case, "backup", "b")

def build_encrypted(case):
    """An encrypted backup folder `b` and its password file `pw`, hostile in one way (t_encrypted, apps)."""
    enc = Encryptor(); rows = backup_rows()
    k = rng.randrange(7)
    folder = os.path.join(case, "b")
    write_backup(folder, rows, enc=enc, size_of=(lambda i, r: rng.choice(HUGE_SIZES) if r[2] == 1 else 0) if k == 0 else None)
    mp = os.path.join(folder, "Manifest.plist")
    manifest = plistlib.load(open(mp, "rb"))
    if k == 1:
        bag = manifest["BackupKeyBag"]
        # TLV lengths, ITER/DPIC counts, WPKY bytes
        manifest["BackupKeyBag"] = mutate(bag) if rng.random() < 0.5 else mutate_fields(bag, [(i, 4) for i in range(4, min(len(bag), 400), 4)])
    elif k == 2:
        manifest["ManifestKey"] = mutate(manifest["ManifestKey"])
    elif k == 3:
        dbp = os.path.join(folder, "Manifest.db"); data = open(dbp, "rb").read()
        open(dbp, "wb").write(mutate(data) if rng.random() < 0.5 else data[:rng.randrange(len(data))])
    elif k == 4:  # an encrypted file's bytes: cut, extended sparse, mutated
        for d in os.listdir(folder):
            p = os.path.join(folder, d)
            if len(d) == 2 and os.path.isdir(p):
                for name in os.listdir(p):
                    fp = os.path.join(p, name)
                    if rng.random() < 0.5:
                        with open(fp, "r+b") as f:
                            f.truncate(rng.choice([0, 7, 15, 17, 260 * 2**20, 2**40]))
    elif k == 5:  # DPIC / ITER set large: the key derivation's cost
        bag = bytearray(manifest["BackupKeyBag"])
        for tag in (b"DPIC", b"ITER"):
            i = bytes(bag).find(tag)
            if i >= 0 and rng.random() < 0.7: bag[i + 8:i + 12] = struct.pack(">I", rng.choice([10**7, 2**31 - 1, 2**32 - 1, 0]))
        manifest["BackupKeyBag"] = bytes(bag)
    plistlib.dump(manifest, open(mp, "wb"), fmt=plistlib.FMT_BINARY)
    with open(os.path.join(case, "pw"), "wb") as f: f.write(b"fuzz\n" if k != 6 else rng.choice([b"wrong\n", b"\xff\xfe\n", b"", b"x" * 100000]))

@target({"name": "encrypted",
         "about": "an encrypted backup (keybag TLVs, ITER/DPIC counts, WPKY, ManifestKey, encrypted Manifest.db, encrypted files cut or sparse, wrong and non-UTF-8 passwords)",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text"], "policySections": []})
def t_encrypted(case):
    build_encrypted(case)
    backup_commands(case, "encrypted", "b", ["--password-file", "pw"])

def metadata(identifier, content_class=None):
    d = {"MCMMetadataIdentifier": identifier, "MCMMetadataUUID": "00000000-0000-0000-0000-000000000000", "MCMMetadataVersion": 1}
    if content_class is not None: d["MCMMetadataContentClass"] = content_class
    return plistlib.dumps(d, fmt=rng.choice([plistlib.FMT_BINARY, plistlib.FMT_XML]))

def build_device(case):
    """A Simulator device folder `DEVICE`, hostile in one way (t_device, apps)."""
    dev = os.path.join(case, "DEVICE")
    base = os.path.join(dev, "data", "Containers")
    made = []
    for sub, ident, cls in [("Data/Application", APP, 2), ("Data/PluginKitPlugin", APP + ".widget", 4),
                            ("Shared/AppGroup", GROUP, 7), ("Data/Application", "com.example.other", 2)]:
        for n in range(rng.choice([1, 1, 2])):
            root = os.path.join(base, sub, "%08X-0000-0000-0000-%012X" % (rng.randrange(2**32), len(made)))
            container(root, metadata(ident, cls))
            made.append(root)
    k = rng.randrange(6)
    target = rng.choice(made)
    meta = os.path.join(target, ".com.apple.mobile_container_manager.metadata.plist")
    if k == 0: open(meta, "wb").write(plist_case(IDENTITY_SEEDS + [open(meta, "rb").read()]))
    elif k == 1: os.remove(meta); os.symlink(rng.choice(["/dev/zero", "/etc/passwd", "../" * 10]), meta)
    elif k == 2: shutil.rmtree(target); os.symlink(rng.choice(["/", made[0], "/nonexistent"]), target)
    elif k == 3:
        shutil.rmtree(target)
        if rng.random() < 0.5 and hasattr(os, "mkfifo"): os.mkfifo(target)
        else: open(target, "wb").write(b"x")
    elif k == 4:
        for root in made: open(os.path.join(root, ".com.apple.mobile_container_manager.metadata.plist"), "wb").write(metadata(APP, 2))
    else:
        many = os.path.join(base, "Data/Application")
        for n in range(rng.choice([100, 2000])): os.makedirs(os.path.join(many, "X%05d" % n), exist_ok=True)

@target({"name": "device",
         "about": "a Simulator device folder (Data/Application, Data/PluginKitPlugin, Shared/AppGroup with metadata plists: mutated, duplicated, symlinked, replaced by files or FIFOs), scan, inventory and simulate --into --verify",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text"], "policySections": []})
def t_device(case):
    build_device(case)
    where = rng.choice(["DEVICE", "DEVICE/data", "DEVICE/data/Containers"])
    a = ["--app", APP, "--app-group", GROUP]
    run(["scan", where] + a, case, "device")
    run(["inventory", where] + a, case, "device")
    event = rng.choice(EVENTS)
    run(["simulate", event, where] + a + ["--into", "out-" + event, "--verify"], case, "device")
    shutil.rmtree(os.path.join(case, "out-" + event), ignore_errors=True)

def rich_container(c):
    container(c)
    files = {"Documents/a.txt": b"a" * 100, "Documents/db.sqlite": b"SQLite format 3\0" + b"\0" * 200,
             "Library/Application Support/blob": b"b" * 3000, "Library/Caches/c": b"c" * 50, "tmp/t": b"t",
             "Library/Preferences/%s.plist" % APP: plistlib.dumps({"k": b"v" * 100}, fmt=plistlib.FMT_BINARY),
             "SystemData/com.apple.chrono/x": b"x", "Library/Application Support/Models/m": b"m" * 10}
    for p, b in files.items():
        os.makedirs(os.path.dirname(os.path.join(c, p)), exist_ok=True)
        open(os.path.join(c, p), "wb").write(b)
    os.link(os.path.join(c, "Documents/a.txt"), os.path.join(c, "Documents/hard"))
    os.symlink("a.txt", os.path.join(c, "Documents/link"))
    if hasattr(os, "mkfifo"): os.mkfifo(os.path.join(c, "tmp/fifo"))
    for p in ["Library/Application Support/Models", "Documents/hard"]:
        try: os.setxattr(os.path.join(c, p), "user." + EXCL, rng.choice(VALUE_SEEDS))
        except OSError: pass
    open(os.path.join(c, "Library/Application Support/._blob"), "wb").write(
        appledouble([(EXCL.encode(), rng.choice(VALUE_SEEDS))]) if rng.random() < 0.7 else mutate(sidecar_seed()))

@target({"name": "simulate",
         "about": "simulate update, restore, purge and all (text and JSON) on a folder, a tgz and a zip with hard links, symlinks, a FIFO, exclusions and sidecars, and --into a fresh or empty folder with --verify",
         "subcommands": ["simulate"], "formats": [], "policySections": ["failOn", "rules", "ignore", "paths", "budgets"]})
def t_simulate(case):
    c = os.path.join(case, "c"); rich_container(c)
    kind = rng.choice(["folder", "tgz", "zip"])
    src = "c"
    if kind == "tgz":
        with tarfile.open(os.path.join(case, "c.tgz"), "w:gz", format=tarfile.PAX_FORMAT) as t: t.add(c, "c")
        src = "c.tgz"
    elif kind == "zip":
        with zipfile.ZipFile(os.path.join(case, "c.zip"), "w") as z:
            for d, _, fs in os.walk(c):
                for f in fs:
                    p = os.path.join(d, f)
                    if os.path.isfile(p) and not os.path.islink(p): z.write(p, os.path.relpath(p, case))
        src = "c.zip"
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(YAML_SEED if rng.random() < 0.8 else mutate(YAML_SEED))
    for event in EVENTS + ["all"]:
        run(["simulate", event, src, "--config", "policy.yml", "--format", rng.choice(["text", "json"])], case, "simulate")
    event = rng.choice(EVENTS)
    into = rng.choice(["fresh", "fresh/", "empty"])
    if into == "empty": os.mkdir(os.path.join(case, "empty"))
    run(["simulate", event, src, "--into", into, "--verify"], case, "simulate")
    shutil.rmtree(os.path.join(case, into), ignore_errors=True)

def sparse_member(name, size):
    """A pax tar member of `size` bytes that stores none (GNU sparse 1.0: a map of no data)."""
    ti = tarfile.TarInfo(name + ".sparse")
    mp = b"1\n0\n0\n"
    body = mp + b"\0" * (512 - len(mp))
    ti.size = len(body)
    ti.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.name": name, "GNU.sparse.realsize": str(size)}
    return ti, body

@target({"name": "huge",
         "about": "sizes near 2^63: GNU sparse tar members adding past 2^63, base-256 tar sizes, sparse files as large as the file system takes",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text", "markdown"], "policySections": []})
def t_huge(case):
    k = rng.randrange(4)
    if k == 0:  # two or more sparse members whose sizes add past 2^63
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for d in ("App/Documents", "App/Library", "App/tmp"):
                ti = tarfile.TarInfo(d); ti.type = tarfile.DIRTYPE; t.addfile(ti)
            for n in range(rng.choice([2, 3, 5])):
                ti, body = sparse_member("App/Documents/big%d" % n, rng.choice([2**62, 2**63 - 1, 2**62 + 2**61]))
                t.addfile(ti, io.BytesIO(body))
        open(os.path.join(case, "big.tar.gz"), "wb").write(gzip.compress(buf.getvalue()))
        src = "big.tar.gz"
    elif k == 1:  # a ustar header whose size field is base-256 and huge, the data missing
        data = bytearray(tar_bytes())
        for off in range(0, len(data) - 512, 512):
            if data[off + 257:off + 262] == b"ustar" and rng.random() < 0.5:
                data[off + 124:off + 136] = b"\x80" + (rng.choice([2**62, 2**63 - 1, 2**64 - 1, 2**87 - 1])).to_bytes(11, "big")
                chk = sum(data[off:off + 148]) + 8 * 32 + sum(data[off + 156:off + 512])
                data[off + 148:off + 156] = b"%06o\0 " % chk
        open(os.path.join(case, "big.tar"), "wb").write(bytes(data)); src = "big.tar"
    else:  # sparse files on disk: as large as the file system takes, several
        c = os.path.join(case, "c"); container(c); src = "c"
        for n in range(rng.choice([2, 3, 8])):
            p = os.path.join(c, "Documents", "big%d" % n)
            with open(p, "wb") as f:
                for size in (2**63 - 1, 2**62, 2**50, 2**44, 2**40):
                    try: f.truncate(size); break
                    except (OSError, OverflowError): continue
    scan_all(case, "huge", src)
    run(["simulate", rng.choice(EVENTS + ["all"]), src], case, "huge")

@target({"name": "deep",
         "about": "deep-and-wide archives (tar.gz, tar.xz, zip): up to 16,000 folders deep, up to 20,000 files at the bottom",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text"], "policySections": []})
def t_deep(case):
    depth = rng.choice([500, 4000, 16000]); wide = rng.choice([10, 2000, 20000 if depth < 16000 else 5000])
    kind = rng.choice(["tar.gz", "tar.xz", "zip"]) if lzma else rng.choice(["tar.gz", "zip"])
    chain = "App/Documents/" + "d/" * depth
    name = "deep." + kind
    path = os.path.join(case, name)
    if kind == "zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("App/Library/", b""); z.writestr("App/tmp/", b"")
            for i in range(wide): z.writestr(chain[:65000] + "f%d" % i, b"")
    else:
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
            for d in ("App/Library", "App/tmp"):
                ti = tarfile.TarInfo(d); ti.type = tarfile.DIRTYPE; t.addfile(ti)
            for i in range(wide):
                t.addfile(tarfile.TarInfo(chain + "f%d" % i))
        data = raw.getvalue()
        open(path, "wb").write(gzip.compress(data, 6) if kind == "tar.gz" else lzma.compress(data, preset=1))
    run(["scan", name], case, "deep")
    run(["inventory", name], case, "deep")
    run(["simulate", rng.choice(EVENTS), name], case, "deep")

# ---- Simulator device sets, --app-info and xcrun ------------------------------------------------

UDID = "A1A1A1A1-0000-4000-8000-000000000001"
HOSTILE_NAMES = ["iPhone 17", "x\x1b]0;owned\x07", "\u202eevil", "\x1b[2J", "a" * 5000, ""]

def device_set(case, apps=(APP,), extra=None):
    """A device set `set` holding one booted device with `apps`' data containers (each with an
    extension `APP.widget`), a group, and the first app's bundle with its Info.plist."""
    dev = os.path.join(case, "set", UDID)
    os.makedirs(dev)
    plistlib.dump({"UDID": UDID, "name": "iPhone 17", "state": 3, "runtime": "com.apple.CoreSimulator.SimRuntime.iOS-26-1"},
                  open(os.path.join(dev, "device.plist"), "wb"), fmt=plistlib.FMT_BINARY)
    base = os.path.join(dev, "data", "Containers")
    for i, app in enumerate(apps):
        container(os.path.join(base, "Data/Application", "%04d" % i), metadata(app, 2))
        container(os.path.join(base, "Data/PluginKitPlugin", "%04d" % i), metadata(app + ".widget"))
    container(os.path.join(base, "Shared/AppGroup", "G"), metadata(GROUP, 7))
    bundle = os.path.join(base, "Bundle/Application", "B")
    os.makedirs(os.path.join(bundle, "App.app"))
    open(os.path.join(bundle, ".com.apple.mobile_container_manager.metadata.plist"), "wb").write(metadata(APP))
    plistlib.dump({"CFBundleIdentifier": APP}, open(os.path.join(bundle, "App.app/Info.plist"), "wb"))
    return dev, base

def replace_hostile(path, outside):
    k = rng.randrange(4)
    if os.path.isdir(path) and not os.path.islink(path): shutil.rmtree(path)
    elif os.path.lexists(path): os.remove(path)
    if k == 0: os.symlink(outside, path)
    elif k == 1: os.symlink(rng.choice(["/", "/etc", "/nonexistent", "../" * 20]), path)
    elif k == 2 and hasattr(os, "mkfifo"): os.mkfifo(path)
    else: open(path, "wb").write(b"x")

@target({"name": "appinfo",
         "about": "--app-info: the app's Info.plist mutated, hostile, another app's or an App Clip's, a folder, a FIFO or a symlink, on a container that names the app and one that does not",
         "subcommands": ["scan", "inventory"], "formats": ["text"], "policySections": []})
def t_appinfo(case):
    c = os.path.join(case, "c")
    named = rng.random() < 0.6
    container(c, metadata(APP, 2) if named else None)
    p = os.path.join(case, "Info.plist")
    k = rng.randrange(6)
    if k == 0: open(p, "wb").write(plist_case(INFO_SEEDS))
    elif k == 1:
        plistlib.dump({"CFBundleIdentifier": rng.choice([APP, APP + ".Clip", "org.other", "\x1b[31m\u202e"]),
                       rng.choice(["NSAppClip", "NSExtension", "UIFileSharingEnabled"]): rng.choice([True, {}, "x", 7])},
                      open(p, "wb"), fmt=plistlib.FMT_BINARY)
    elif k == 2: open(p, "wb").write(hostile_plist())
    elif k == 3: os.makedirs(os.path.join(case, "App.app")); p = os.path.join(case, rng.choice(["App.app", "App.app/"]))
    elif k == 4: replace_hostile(p, "/dev/zero")
    else: open(p, "wb").write(mutate(plistlib.dumps({"CFBundleIdentifier": APP, "NSAppClip": {}}, fmt=plistlib.FMT_BINARY)))
    extra = ["--app", APP] if named and rng.random() < 0.5 else []
    run(["scan", "c", "--app-info", os.path.relpath(p, case)] + extra, case, "appinfo")
    run(["inventory", "c", "--app-info", os.path.relpath(p, case)] + extra, case, "appinfo")

def build_deviceset(case):
    """A device set `set` (device_set), hostile in one way; returns its apps (t_deviceset, apps)."""
    apps = [APP] + ([APP + ".pro"] if rng.random() < 0.5 else [])
    dev, base = device_set(case, apps)
    outside = os.path.join(case, "outside")
    container(os.path.join(outside, "c"), metadata(APP, 2))
    k = rng.randrange(6)
    if k == 0:
        p = os.path.join(dev, "device.plist")
        open(p, "wb").write(plist_case([open(p, "rb").read()]))
    elif k == 1:
        plistlib.dump({"UDID": UDID, "name": rng.choice(HOSTILE_NAMES), "state": rng.choice([3, 1, -1, 2**40])},
                      open(os.path.join(dev, "device.plist"), "wb"), fmt=plistlib.FMT_BINARY)  # XML cannot hold control characters
    elif k == 2:
        part = rng.choice(["data", "data/Containers", "data/Containers/Data/Application", "data/Containers/Data/Application/0000",
                           "data/Containers/Data/PluginKitPlugin", "data/Containers/Bundle/Application/B/App.app"])
        replace_hostile(os.path.join(dev, part), os.path.join(outside, "c"))
    elif k == 3:
        container(os.path.join(base, "Data/Application", "dup"), metadata(APP, 2))
    elif k == 4:
        p = os.path.join(base, "Bundle/Application/B/App.app/Info.plist")
        open(p, "wb").write(plist_case(INFO_SEEDS))
    else:
        os.rename(dev, os.path.join(case, "moved"))
        os.symlink(os.path.join(case, "moved"), dev)
    return apps

@target({"name": "deviceset",
         "about": "--simulator --device-set: device.plists mutated or hostile (control characters and U+202E in names), device folders and data, Containers, Data/Application and containers replaced by symlinks, files or FIFOs, two data containers of the app, flavour apps with extensions, a bundle's Info.plist mutated",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text"], "policySections": []})
def t_deviceset(case):
    apps = build_deviceset(case)
    spec = rng.choice(["booted", UDID, "iPhone 17", rng.choice(HOSTILE_NAMES) or "x"])
    a = ["--simulator", spec, "--device-set", "set", "--app", rng.choice(apps)]
    run(["scan"] + a, case, "deviceset")
    run(["inventory"] + a, case, "deviceset")
    event = rng.choice(EVENTS)
    run(["simulate", event] + a + ["--into", "out-" + event], case, "deviceset")
    shutil.rmtree(os.path.join(case, "out-" + event), ignore_errors=True)

@target({"name": "xcrun",
         "about": "a fake xcrun first on PATH for --simulator: its listapps output mutated, a binary bomb, deeply nested text, 5 MB, non-zero exits (the hanging and stopped xcrun, which take the 30 s deadline, are held by XcrunDeadlineTests instead)",
         "subcommands": ["scan"], "formats": ["json"], "policySections": []})
def t_xcrun(case):
    device_set(case)
    bin_dir = os.path.join(case, "bin"); os.makedirs(bin_dir)
    good = ('{ "%s" = { CFBundleIdentifier = "%s"; GroupContainers = { "%s" = "file:///x/"; }; }; }' % (APP, APP, GROUP)).encode()
    k = rng.randrange(7)
    if k == 0: out = mutate(good)
    elif k == 1: out = hostile_plist()
    elif k == 2: out = b"(" * rng.choice([300, 100000]) + b")" * 10
    elif k == 3: out = b"A" * rng.choice([5 << 20, 100])
    elif k == 4: out = mutate(plistlib.dumps({APP: {"GroupContainers": {GROUP: "x"}}}, fmt=rng.choice([plistlib.FMT_BINARY, plistlib.FMT_XML])))
    elif k == 5: out = b'{ "' + b"\x1b]0;x\x07\xe2\x80\xae" + b'" = {}; }'
    else: out = good
    open(os.path.join(case, "out.bin"), "wb").write(out)
    code = rng.choice([0, 0, 0, 1, 70])
    script = os.path.join(bin_dir, "xcrun")
    open(script, "w").write("#!/bin/sh\ncat '%s'\nexit %d\n" % (os.path.join(case, "out.bin"), code))
    os.chmod(script, 0o755)
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = bin_dir + ":" + saved
    try:
        run(["scan", "--format", "json", "--simulator", "booted", "--device-set", "set", "--app", APP], case, "xcrun")
    finally:
        os.environ["PATH"] = saved

# ---- compare and baselines, ncdu --------------------------------------------------------------

def baseline_doc(n_files=None):
    n = n_files if n_files is not None else rng.choice([0, 1, 3, 20])
    files = []
    for i in range(n):
        files.append({"path": rng.choice(["Documents/f%d" % i, "Library/Caches/c%d" % i, "AppDomainGroup-group.x/g%d" % i]),
                      "size": rng.randrange(0, 10**6), "mtime": 1_700_000_000 + i, "zone": rng.choice(["documents", "caches", "applicationSupport"]),
                      "backedUp": rng.random() < 0.5, "inode": 1000 + i, "excluded": rng.random() < 0.3, "survivesUpdate": True,
                      "owner": rng.choice([None, "Firebase", "team"])})
    # A hard-linked file's other names: new, another file's path, repeated, or many.
    for f in files:
        if rng.random() < 0.2:
            f["links"] = rng.choice([[{"path": f["path"] + ".2"}], [{"path": files[0]["path"]}], [{"path": "Documents/l"}] * 2,
                                     [{"path": "Documents/l%d" % i} for i in range(rng.choice([1, 2000]))], [{"pathBase64": "//4="}], None])
    doc = {"schemaVersion": rng.choice([1, 2, 3, 3, 3]), "kind": "sandbox-audit-baseline",
            "container": {"bundleIdentifier": APP, "version": "1.0"}, "backupFootprint": sum(f["size"] for f in files if f["backedUp"]),
            "zones": [{"zone": "documents", "size": 10, "backedUpSize": 10}], "complete": rng.random() < 0.8,
            "missed": [{"path": "Library/x", "what": "open directory", "why": "Permission denied"}],
            "findings": [{"ruleId": "misplaced-at-root", "path": "Downloads", "severity": "warning", "message": "m"}], "files": files}
    # The domains the scan audited (absent from older baselines): empty, one-sided, repeated, many.
    k = rng.randrange(5)
    if k == 1: doc["domains"] = ["AppDomain-" + APP, "AppDomainGroup-group.x"]
    elif k == 2: doc["domains"] = ["AppDomain-" + APP]
    elif k == 3: doc["domains"] = []
    elif k == 4: doc["domains"] = ["AppDomainPlugin-%s.e%d" % (APP, i) for i in range(rng.choice([2, 5000]))] + ["AppDomain-" + APP] * 2
    return doc

def report_doc():
    return {"schemaVersion": 2, "tool": {"name": "sandbox-audit", "version": "0.1.0"}, "container": {"bundleIdentifier": APP},
            "complete": rng.random() < 0.8, "missed": [], "domains": [{"domain": "AppDomain-" + APP, "totals": {"backupFootprint": 5, "keptOnUpdate": 5, "files": 1}}],
            "totals": {"backupFootprint": 5, "keptOnUpdate": 5, "files": 1}, "zones": [{"zone": "documents", "backedUpSize": 5, "survivesUpdateSize": 5, "files": 1}],
            "findings": [{"ruleId": "misplaced-at-root", "domain": "AppDomain-" + APP, "path": None, "severity": "error", "message": "x"}]}

HOSTILE_JSON_VALUES = ["18446744073709551616", "1e400", "1e40", "-1", "1.5", "true", "null", '"yes"', "{}", "[]",
                       "9223372036854775807", "9223372036854775808", "-9223372036854775809", '"\\u0000"', '"\\ud800"']

def hostile_json(doc):
    import json, re
    text = json.dumps(doc, indent=rng.choice([None, 2]))
    r = rng.random()
    if r < 0.35:
        # Replace some values with hostile ones.
        for _ in range(rng.randrange(1, 4)):
            values = list(re.finditer(r'(?<=: )(-?[0-9][0-9.e+]*|true|false|null|"[^"]*")', text))
            if not values: break
            m = rng.choice(values)
            text = text[:m.start()] + rng.choice(HOSTILE_JSON_VALUES) + text[m.end():]
        return text.encode()
    if r < 0.45: return text.encode()[:rng.randrange(len(text) + 1)]
    if r < 0.5: return b"[" * rng.choice([600, 100000]) + b"]" * 10
    if r < 0.55: return b'{"kind":"sandbox-audit-baseline","schemaVersion":3,"files":' + b"[" * rng.choice([513, 5000]) + b"]" * 10 + b"}"
    if r < 0.6: return b"{" + b"\0" * rng.randrange(1, 4096)
    return mutate(text.encode())

@target({"name": "compare",
         "about": "baselines and scan reports read back: `compare` (text, markdown, json, --fail-on-growth) and `scan --baseline`, on mutated JSON (numbers 2^64, 1e400, 1.5, true, strings for numbers, objects for lists, deep nesting, cut text, NUL bytes, sparse files, unknown versions, hostile names)",
         "subcommands": ["compare", "scan"], "formats": ["text"], "policySections": []})
def t_compare(case):
    c = os.path.join(case, "c"); container(c)
    base = baseline_doc() if rng.random() < 0.7 else report_doc()
    head = baseline_doc() if rng.random() < 0.7 else report_doc()
    import json
    with open(os.path.join(case, "base.json"), "wb") as f: f.write(json.dumps(base).encode() if rng.random() < 0.5 else hostile_json(base))
    with open(os.path.join(case, "head.json"), "wb") as f: f.write(hostile_json(head))
    if rng.random() < 0.05:
        with open(os.path.join(case, "head.json"), "r+b") as f: f.truncate(rng.choice([1 << 20, 400 << 20]))
    run(["compare", "base.json", "head.json"], case, "compare")
    run(["compare", "base.json", "head.json", "--format", rng.choice(["markdown", "json"]), "--fail-on-growth", "1"], case, "compare")
    run(["scan", "c", "--baseline", "head.json"], case, "compare")

NCDU_NAMES = [b"\\xFF", b"\xff", b"a\\b", b'q"uote', b"\x1b[31mred", b"\xe2\x80\xaeevil", b"tab\tname", b"nl\nname", b"\\", b"\xc3\xa9", b"e\xcc\x81"]

@target({"name": "ncdu",
         "about": "the ncdu export of containers and archives with hostile names (bytes that are not UTF-8, backslashes, quotes, control characters, a file and members below it, ./ and // member paths, deep chains)",
         "subcommands": ["scan"], "formats": ["text", "ncdu"], "policySections": []})
def t_ncdu(case):
    if rng.random() < 0.5:
        c = os.path.join(case, "c"); container(c)
        folder = os.path.join(c, "Documents").encode()
        for _ in range(rng.randrange(1, 8)):
            name = rng.choice(NCDU_NAMES) + (b"%d" % rng.randrange(3) if rng.random() < 0.5 else b"")
            p = folder + b"/" + name
            try:
                if rng.random() < 0.3: os.makedirs(p, exist_ok=True)
                else: open(p, "wb").write(b"x" * rng.randrange(100))
            except OSError:
                pass
        if rng.random() < 0.2:
            deep = os.path.join(c, "Library")
            for _ in range(rng.choice([50, 500])): deep = os.path.join(deep, "d")
            os.makedirs(deep, exist_ok=True)
        path = "c"
    else:
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
            for d in ("Documents", "Library", "Library/Preferences", "tmp"):
                info = tarfile.TarInfo(rng.choice(["", "./"]) + d); info.type = tarfile.DIRTYPE; t.addfile(info)
            for _ in range(rng.randrange(1, 8)):
                name = rng.choice(NCDU_NAMES).decode("utf-8", "surrogateescape")
                p = rng.choice(["Documents/", "./Documents/", "Documents//", "Documents/./"]) + name
                info = tarfile.TarInfo(p); data = b"y" * rng.randrange(50); info.size = len(data)
                t.addfile(info, io.BytesIO(data))
                if rng.random() < 0.3:
                    info = tarfile.TarInfo(p + "/below"); info.size = 1; t.addfile(info, io.BytesIO(b"z"))
        data = raw.getvalue()
        if rng.random() < 0.2: data = mutate(data)
        with open(os.path.join(case, "n.tar"), "wb") as f: f.write(data)
        path = "n.tar"
    run(["scan", path, "--output", "ncdu=out.ncdu.json"], case, "ncdu")
    run(["scan", path, "--allow-incomplete", "--output", "ncdu=-"], case, "ncdu")

# ---- shared by the targets below ---------------------------------------------------------------

ZONES = ["documents", "applicationSupport", "caches", "preferences", "systemLibrary", "library", "tmp", "root"]
RULE_IDS = ["misplaced-at-root", "oversized-backed-up-file", "unexcluded-support-data", "recreatable-in-documents",
            "excluded-user-data", "excluded-container-directory", "redundant-exclusion", "legacy-exclusion-attribute",
            "unrecognised-exclusion-value", "orphan-sidecar", "stale-temporary-file", "unreadable-entry",
            "symlink-escapes-container", "special-file", "large-user-defaults", "split-store-backup", "volatile-store",
            "many-backed-up-files", "policy-backup-excluded", "policy-backup-included", "policy-forbidden", "policy-max-size",
            "budget-exceeded", "suppression-expired", "exclusion-lost", "backup-prediction-mismatch", "protection-below-policy",
            "store-protection-mismatch", "shared-store-complete-protection", "unprotected-store", "scoped-exclusion-attribute",
            "user-visible-documents"]
# Text that reaches reports: terminal escapes, bidirectional controls, markup, huge, empty.
HOSTILE_TEXT = ["\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\u202eevil", "\u2066iso\u2069", "a" * 5000, "", " ", "\u0000",
                "tab\there", "nl\nhere", "<script>alert(1)</script>", "&amp;<b>", "\ud800", "\u00e9" * 300, "::error::x", "%0A"]
# The formats whose output tools read (Xcode, GitHub, GitLab, SARIF viewers): no raw control may
# come through from a name.
CHECKED_FORMATS = ["xcode", "github", "codeclimate", "sarif"]
FORMATS = ["text", "json", "sarif", "junit", "github", "markdown", "html", "ncdu", "xcode", "codeclimate", "app-review", "metrics"]
RAW_CONTROLS = [(b"\x1b", "ESC")] + [(chr(c).encode(), "U+%04X" % c) for c in list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A))]
# Lines a name may try to start (see PRINTER_NAMES): a workflow command, an Xcode issue.
INJECTED_LINES = [b"::error title=INJECTED", b"/INJECTED:1: error:"]

def yq(text, raw=False):
    """text as a YAML double-quoted scalar: controls written as escapes (\\e, \\u202e) unless raw."""
    out = []
    for ch in text:
        if ch in '"\\': out.append("\\" + ch)
        elif raw: out.append(ch)
        elif ch == "\n": out.append("\\n")
        elif ch == "\t": out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F: out.append("\\x%02x" % ord(ch))
        elif 0xD800 <= ord(ch) < 0xE000 or ch in "\u2028\u2029\u0085" or 0x202A <= ord(ch) <= 0x202E or 0x2066 <= ord(ch) <= 0x2069:
            out.append("\\u%04x" % ord(ch))
        else: out.append(ch)
    return '"' + "".join(out) + '"'

def output_problems(data, fmt):
    """The raw controls and injected lines in a checked format's output."""
    problems = []
    if fmt not in CHECKED_FORMATS or not data: return problems
    found = [(data.find(pat), name, data.count(pat)) for pat, name in RAW_CONTROLS if pat in data]
    if found:
        first = min(found)[0]
        problems.append(("raw-control", "%s output holds raw %s; the first at byte %d: %r"
                         % (fmt, ", ".join("%s (%d)" % (name, n) for _, name, n in sorted(found)), first, data[max(0, first - 80):first + 40])))
    if fmt in ("xcode", "github"):
        for line in data.split(b"\n"):
            if any(line.startswith(m) for m in INJECTED_LINES):
                problems.append(("line-injection", "%s output has a line a file name began: %r" % (fmt, line[:160]))); break
    return problems

def check_outputs(console_format, files):
    """A run's check: its standard output in console_format, and files (name: format) it wrote."""
    def check(stdout, cwd):
        problems = output_problems(stdout, console_format)
        for name, fmt in files.items():
            try: problems += [(k, "%s (%s): %s" % (name, fmt, w)) for k, w in output_problems(open(os.path.join(cwd, name), "rb").read(), fmt)]
            except OSError: pass
        return problems
    return check

# ---- trend ------------------------------------------------------------------------------------

# (points, entries per point): entries are a baseline's files or a scan report's domain owners.
TREND_SCALES = [(2, 3), (3, 100), (5, 3000), (20, 500), (100, 100), (300, 20), (1000, 1), (1000, 10), (1000, 40), (2, 30000)]
HUGE_VALUES = [2**63 - 1, 2**62, 2**62 + 2**61, 2**53 + 1, 0, 1]

def trend_size(style, point, j):
    if style == "huge": return rng.choice(HUGE_VALUES)
    if style == "grow": return 1000 * (point + 1) + j
    return rng.randrange(0, 10**6)

def trend_baseline(point, n, shape, style, owners, domains, bundle):
    files = []; seen = set()
    for j in range(n):
        if shape == "distinct": path = "Documents/p%d-%d" % (point, j)
        elif shape == "shared": path = rng.choice(["Library/Application Support/f%d" % j, "Documents/f%d.sqlite-wal" % j, "Library/WebKit/w%d" % j])
        else: path = rng.choice(["Documents/p%d-%d" % (point, j), "Library/Caches/c%d" % j, "tmp/t%d-%d" % (j, point % 3)])
        if domains and rng.random() < 0.5: path = rng.choice(["AppDomainGroup-group.g%d/", "AppDomainPlugin-" + APP + ".e%d/"]) % rng.randrange(domains) + path
        if path in seen: continue
        seen.add(path)
        f = {"path": path, "size": trend_size(style, point, j), "mtime": 1_700_000_000 + point, "zone": rng.choice(ZONES),
             "backedUp": rng.random() < 0.8, "inode": 1000 + j, "excluded": False, "survivesUpdate": True}
        if rng.random() < 0.02:
            del f["path"]; f["pathBase64"] = __import__("base64").b64encode(b"Documents/\xff\x1b%d-%d" % (point, j)).decode()
        if owners: f["owner"] = ("team%d" % rng.randrange(owners)) if rng.random() < 0.9 else rng.choice(HOSTILE_TEXT + [None])
        files.append(f)
    zones = {}
    for f in files:
        z = zones.setdefault(f["zone"], {"zone": f["zone"], "size": 0, "backedUpSize": 0})
        z["size"] += f["size"]; z["backedUpSize"] += f["size"] if f["backedUp"] else 0
    foot = sum(f["size"] for f in files if f["backedUp"])
    if style == "huge" and rng.random() < 0.5: foot = rng.choice(HUGE_VALUES)
    return {"schemaVersion": 3, "kind": "sandbox-audit-baseline", "container": {"bundleIdentifier": bundle, "version": "1.%d" % point},
            "backupFootprint": foot, "zones": list(zones.values()), "complete": rng.random() < 0.95, "missed": [],
            "findings": [], "files": files}

def trend_report(point, n, style, domains, bundle):
    doms = []
    per = max(1, n // max(1, domains))
    for d in range(max(1, domains)):
        name = "AppDomain-" + bundle if d == 0 else rng.choice(["AppDomainGroup-group.g%d", "AppDomainPlugin-" + APP + ".e%d"]) % d
        owners = [{"owner": ("owner%d" % o) if rng.random() < 0.95 else rng.choice(HOSTILE_TEXT), "kind": rng.choice(["sdk", "team"]),
                   "files": rng.randrange(1, 100), "backedUpBytes": trend_size(style, point, o), "size": trend_size(style, point, o)} for o in range(per)]
        foot = trend_size(style, point, d) if style == "huge" else sum(o["backedUpBytes"] for o in owners) + rng.randrange(1000)
        doms.append({"domain": name, "totals": {"backupFootprint": foot, "keptOnUpdate": foot, "files": len(owners)},
                     "zones": [{"zone": z, "backedUpSize": trend_size(style, point, 0), "survivesUpdateSize": 0, "files": 1} for z in rng.sample(ZONES, 3)],
                     "owners": owners})
    total = doms[0]["totals"]["backupFootprint"] if style == "huge" else sum(x["totals"]["backupFootprint"] for x in doms)
    return {"schemaVersion": 2, "tool": {"name": "sandbox-audit", "version": "0.1.0"}, "container": {"bundleIdentifier": bundle},
            "complete": rng.random() < 0.95, "missed": [], "domains": doms,
            "totals": {"backupFootprint": total, "keptOnUpdate": total, "files": n},
            "zones": [{"zone": "documents", "backedUpSize": total, "survivesUpdateSize": total, "files": n}], "findings": []}

@target({"name": "trend",
         "about": "trend over 2 to 1,000 baselines and scan reports (and a few more than 1,000): many points, many distinct paths per point, thousands of distinct owners and domains, sizes near 2^63 whose sums overflow, hostile owner names and paths, two apps, some points mutated as compare's are; text, markdown, json and html, --fail-on-growth-per-step",
         "subcommands": ["trend"], "formats": [], "policySections": []})
def t_trend(case):
    points, n = rng.choice(TREND_SCALES)
    mode = rng.choice(["baselines", "baselines", "reports", "mixed"])
    shape = rng.choice(["distinct", "shared", "mixed"]); style = rng.choice(["small", "grow", "grow", "huge"])
    owners = rng.choice([0, 3, 1000, 5000]); domains = rng.choice([0, 0, 5, 2000])
    other = rng.random() < 0.1
    names = []
    for i in range(points):
        bundle = "com.example.other" if other and i == points - 1 else APP
        report = mode == "reports" or (mode == "mixed" and rng.random() < 0.5)
        doc = trend_report(i, n, style, domains, bundle) if report else trend_baseline(i, n, shape, style, owners, domains, bundle)
        name = "p%04d.json" % i
        text = json.dumps(doc).encode()
        names.append(name)
        with open(os.path.join(case, name), "wb") as f: f.write(text)
    if rng.random() < 0.4:  # some points mutated
        for name in rng.sample(names, min(len(names), rng.randrange(1, 4))):
            with open(os.path.join(case, name), "rb") as f: doc = json.loads(f.read())
            with open(os.path.join(case, name), "wb") as f: f.write(hostile_json(doc))
    args = list(names)
    k = rng.randrange(10)
    if k == 0: args = args + (args[:1] if rng.random() < 0.5 else args * (1001 // len(args)))  # a file twice; over 1,000
    elif k == 1:
        i = rng.randrange(len(args)); p = os.path.join(case, args[i]); os.remove(p)
        kind = rng.randrange(4)
        if kind == 0: os.mkdir(p)
        elif kind == 1: os.symlink("/dev/zero", p)
        elif kind == 2: os.symlink("missing", p)
        else: open(p, "wb").truncate(rng.choice([1 << 20, 600 << 20]))
    elif k == 2:  # hostile file names
        i = rng.randrange(len(args)); new = rng.choice([b"\x1b[31m.json", b"\xff\xfe.json", "\u202enosj.json".encode(), b"-", b"--format"])
        os.rename(os.path.join(case, args[i]).encode(), os.path.join(case.encode(), new)); args[i] = new if new not in (b"-", b"--format") else b"./" + new
    fmt = rng.choice(["text", "markdown", "json", "html"])
    extra = []
    if rng.random() < 0.4: extra += ["--fail-on-growth-per-step", rng.choice(["0", "1", "500kB", "9223372036854775807", "99999999999999999999B", "1.5MB", "8EiB"])]
    if rng.random() < 0.3: extra.append("--allow-incomplete")
    if other or rng.random() < 0.2: extra.append("--allow-different-apps")
    what = "%d points, %d entries each (%s, %s paths, %s sizes, %d owners, %d domains)" % (points, n, mode, shape, style, owners, domains)
    run(["trend"] + args + ["--format", fmt] + extra, case, "trend", what=what)
    run(["trend"] + args + ["--format", rng.choice(["json", "html"])], case, "trend", what=what)

# ---- suppress ---------------------------------------------------------------------------------

UNTIL_VALUES = ["2099-12-31", "2001-01-01", "2027-13-45", "0000-01-01", "0001-01-01", "99999-01-01", "2027-02-29",
                "2028-02-29", "2027-6-3", "2027-06-30T00:00:00Z", "x" * 100000, "", "null", "[2027-01-01]", "20270101",
                "-2027-01-01", "2027-01-01 ", "\uff12\uff10\uff12\uff17-01-01", "2027-01-32", "9223372036854775807-01-01",
                "1970-01-01", "2038-01-19", "292277026596-12-04", "2026-12-07", "2026-12-08"]
EPOCHS = [None, "0", "1700000000", "99999999999999999999", "9223372036854775807", "-1", "-9223372036854775808", "abc", "",
          "1e9", " 1", "253402300800", "1700000000.5", "9999999999999999", "999999999999999", "0x10", "\u0661\u0662"]

def suppress_entry(many_rules, cap=None):
    """One entry of suppress:; cap: the longest string, so that thousands of entries stay small."""
    r = rng.random()
    rule = rng.choice(many_rules) if r < 0.8 else rng.choice(["misplaced-at-rot", "", "\x1b[31m", "x" * 100000, 42, None, ["a"]])
    glob = rng.choice(["**", "Documents/**", "Documents/f*", "tmp/**", "", "/", "[", "a" * 70000, "\x1b", "**/" * 500 + "x",
                       "Documents/\u202e*", random_glob()])
    reason = rng.choice(["shipped seed", "", " ", "x" * 200000, "\x1b[31mred\x1b[0m", "\u202eevil", "multi\nline", "\u2066iso\u2069 ok"])
    if cap:
        rule, glob, reason = rule[:cap] if isinstance(rule, str) else rule, glob[:cap], reason[:cap]
    e = "  - rule: %s\n    path: %s\n" % (yq(rule) if isinstance(rule, str) else json.dumps(rule), yq(glob))
    if rng.random() < 0.95: e += "    reason: %s\n" % (yq(reason, raw=rng.random() < 0.2) if rng.random() < 0.9 else "|\n      " + reason.replace("\n", "\n      "))
    if rng.random() < 0.7:
        u = rng.choice(UNTIL_VALUES)[:cap]
        e += "    until: %s\n" % (u if rng.random() < 0.5 and u and "\n" not in u and not u.startswith(("[", "-", " ")) and ":" not in u else yq(u))
    return e

def findings_container(c, n):
    """A container with about n findings with paths (files a policy forbids, stale tmp files,
    items at the root) and large sparse files."""
    container(c)
    for i in range(n):
        p = os.path.join(c, rng.choice(["Documents", "tmp", "Documents", "."]), "f%d" % i)
        with open(p, "wb") as f: f.write(b"x")
        if "/tmp/" in p or rng.random() < 0.1: os.utime(p, (1_000_000_000, 1_000_000_000))
    for i in range(rng.choice([0, 1, 3])):
        with open(os.path.join(c, "Documents", "big%d.sqlite" % i), "wb") as f: f.truncate(rng.choice([20 << 20, 2 << 30]))

@target({"name": "suppress",
         "about": "the policy's suppress: entries (many; rule ids valid and not; hostile globs; reasons empty, huge, with escapes; until dates 2027-13-45, year 0, 99999-01-01, huge strings) on containers with many findings, under SOURCE_DATE_EPOCH unset, huge, negative, -2^63, not a number or empty; scan in every format, --write-baseline then --baseline with growth:, config show",
         "subcommands": ["scan", "config", "inventory"], "formats": FORMATS,
         "policySections": ["failOn", "rules", "paths", "budgets", "growth", "suppress"]})
def t_suppress(case):
    c = os.path.join(case, "c"); findings_container(c, rng.choice([10, 300, 3000]))
    n = rng.choice([1, 3, 50, 1000, 3000])
    pool = rng.sample(RULE_IDS, rng.randrange(1, len(RULE_IDS)))
    y = "failOn: %s\n" % rng.choice(["note", "warning", "error"])
    if rng.random() < 0.5: y += "rules:\n  suppression-expired: %s\n" % rng.choice(["warning", "error", "off", "note"])
    y += "paths:\n  - {path: \"Documents/**\", forbidden: true}\n  - {path: \"Documents/*\", maxSize: 1B}\n"
    y += "budgets:\n  backup: %s\n" % rng.choice(["1B", "1GB", "0"])
    if rng.random() < 0.5: y += "growth:\n  backup: %s\n  min: 1B\n" % yq(rng.choice(["10%", "0%", "1000000000%", "-5%", "x%"]))
    y += "suppress:\n" + "".join(suppress_entry(pool, None if n <= 50 else 1000) for _ in range(n))
    b = y.encode("utf-8", "surrogatepass")
    if rng.random() < 0.1: b = mutate(b)
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(b)
    env = {"SOURCE_DATE_EPOCH": rng.choice(EPOCHS)}
    what = "%d suppress entries, %d files" % (n, sum(len(fs) for _, _, fs in os.walk(c)))
    f1, f2 = rng.sample(FORMATS, 2)
    run(["scan", "c", "--config", "policy.yml", "--format", f1], case, "suppress", env=env, what=what, check=check_outputs(f1, {}))
    run(["scan", "c", "--config", "policy.yml", "--format", f2, "--output", "json=out.json", "--write-baseline", "base.json", "--force"],
        case, "suppress", env=env, what=what, check=check_outputs(f2, {}))
    if os.path.exists(os.path.join(case, "base.json")):
        run(["scan", "c", "--config", "policy.yml", "--baseline", "base.json", "--format", rng.choice(FORMATS)], case, "suppress", env=env, what=what)
    run(["config", "show", "--config", "policy.yml"], case, "suppress", env=env, what=what)
    if rng.random() < 0.3: run(["inventory", "c", "--config", "policy.yml"], case, "suppress", env=env, what=what)

# ---- stdin ------------------------------------------------------------------------------------

STDIN_LIMIT = {"supported": None}  # whether scan --help lists --stdin-limit (asked once, in main)
STDIN_LIMITS = ["0", "1", "100", "1kB", "64KiB", "1MB", "16GiB", "99999999999GB", "-1", "abc", "1.5MB",
                "9223372036854775807", "9223372036854775808", "", " 1MB", "1e3"]

def endless(chunk):
    while True: yield chunk

def stdin_archive():
    """A small container as a tar (pax with xattr records, or ustar/GNU with none), tgz, txz,
    tbz2 or zip; and how it was damaged."""
    files = {"App/Documents/a.txt": b"a" * rng.randrange(1, 3000), "App/Library/Preferences/%s.plist" % APP: b"bplist00",
             "App/Library/Caches/c": b"c" * 100, "App/tmp/t": b"t", "App/Library/Application Support/db.sqlite": b"SQLite format 3\0" + b"\0" * 100}
    kind = rng.choice(["tar", "tar", "tgz", "txz", "tbz2", "zip"])
    fmt = rng.choice([tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT])
    xattrs = fmt == tarfile.PAX_FORMAT and rng.random() < 0.6
    buf = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buf, "w", rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as z:
            for p, b in files.items(): z.writestr(p, b)
    else:
        with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
            for d in ("App", "App/Documents", "App/Library", "App/Library/Preferences", "App/Library/Caches", "App/tmp", "App/Library/Application Support"):
                ti = tarfile.TarInfo(d); ti.type = tarfile.DIRTYPE; ti.mode = 0o755; t.addfile(ti)
            for p, b in files.items():
                ti = tarfile.TarInfo(p); ti.size = len(b)
                if xattrs and p.endswith("a.txt"): ti.pax_headers = {"SCHILY.xattr.user." + EXCL: CANONICAL.decode("latin-1")}
                t.addfile(ti, io.BytesIO(b))
    data = buf.getvalue()
    if kind == "tgz": data = gzip.compress(data)
    elif kind == "txz": data = lzma.compress(data)
    elif kind == "tbz2": data = __import__("bz2").compress(data)
    damage = rng.choice(["none", "none", "truncated", "mutated", "headers", "garbage after", "twice"])
    if damage == "truncated": data = data[:rng.randrange(len(data))]
    elif damage == "mutated": data = mutate(data)
    elif damage == "headers":
        b = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            i = rng.randrange(min(len(b), 2048)); b[i] = rng.randrange(256)
        data = bytes(b)
    elif damage == "garbage after": data += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5000)))
    elif damage == "twice": data += data
    return data, "%s (%s%s), %s" % (kind, {tarfile.PAX_FORMAT: "pax", tarfile.USTAR_FORMAT: "ustar", tarfile.GNU_FORMAT: "gnu"}[fmt] if kind != "zip" else "zip",
                                    ", xattr records" if xattrs and kind != "zip" else ", no extended attributes", damage)

@target({"name": "stdin",
         "about": "scan -, inventory - and simulate update - --into DIR fed through a pipe (or a file): random bytes, zeros, yes output (endless too), nothing, tar/tgz/txz/tbz2/zip whole, truncated, mutated or doubled, tars with and without extended attribute records; --stdin-limit SIZE (sizes hostile) when scan --help lists it",
         "subcommands": ["scan", "inventory", "simulate"], "formats": ["text", "json", "markdown"], "policySections": []})
def t_stdin(case):
    k = rng.randrange(10)
    # Drawn whether or not the binary takes the option, so that a seed gives the same cases.
    limit_value = rng.choice(STDIN_LIMITS) if rng.random() < 0.4 else None
    limited = limit_value is not None and STDIN_LIMIT["supported"]
    stream = None  # an endless input: made again for each run
    if k == 0: data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 511, 512, 10000]))); what = "%d random bytes" % len(data)
    elif k == 1: data = b"\0" * rng.choice([512, 1024, 10240, 1 << 20, 64 << 20]); what = "%d zero bytes" % len(data)
    elif k == 2:
        size = rng.choice([1 << 20, 64 << 20, None])
        if size is None: data = b""; stream = lambda: endless(b"y\n" * 32768); what = "yes output, endless"
        else: data = b"y\n" * (size // 2); what = "yes output, %d bytes" % size
    elif k == 3: data = b""; what = "nothing"
    elif k == 4:
        # An archive's first bytes, then more than a small --stdin-limit takes (endless when one is given).
        archive, what = stdin_archive()
        head = archive[:4096]
        if limited and limit_value in ("0", "1", "100", "1kB", "64KiB", "1MB"):
            data = head; stream = lambda: itertools.chain([head], endless(b"\xa5" * (1 << 20)))
            what += ", its first 4096 bytes then endless bytes"
        else:
            data = head + b"\xa5" * rng.choice([1 << 20, 32 << 20]); what += ", its first 4096 bytes then %d bytes" % (len(data) - len(head))
    else: data, what = stdin_archive()
    as_file = stream is None and rng.random() < 0.2
    with open(os.path.join(case, "stdin.bin"), "wb") as f: f.write(data)
    what += " on standard input as %s (stdin.bin%s)" % ("a file" if as_file else "a pipe", ": its start" if stream else "")
    extra = ["--stdin-limit", limit_value] if limited else []
    commands = [["scan", "-", "--format", rng.choice(["text", "json", "markdown"])], ["inventory", "-"],
                ["simulate", "update", "-", "--into", "out"] + (["--verify"] if rng.random() < 0.5 else [])]
    for cmd in rng.sample(commands, 2):
        stdin = ("file", os.path.join(case, "stdin.bin")) if as_file else stream() if stream else data
        run(cmd + extra, case, "stdin", stdin=stdin, what=what)
        shutil.rmtree(os.path.join(case, "out"), ignore_errors=True)

# ---- printers ---------------------------------------------------------------------------------

# File names for the report printers: terminal escapes (CSI, OSC title, OSC 8 link, clear screen),
# every bidirectional control, an Xcode issue and a GitHub workflow command inside a name and
# after a newline (INJECTED_LINES), CR, tab, DEL, C0 and C1 controls, bytes that are not UTF-8
# (lone continuation bytes, overlong NUL, a UTF-16 surrogate, a cut sequence), markup, 255 bytes.
PRINTER_NAMES = [b"\x1b[31mred\x1b[0m", b"\x1b]0;title\x07", b"\x1b]8;;http://e.example/\x1b\\link\x1b]8;;\x1b\\", b"\x1b[2J\x1b[H",
                 "\u202eevil.txt".encode(), "a\u202ab\u202bc\u202cd\u202de".encode(), "\u2066i\u2067r\u2068f\u2069".encode(),
                 "\u200e\u200f\u061c".encode(), b"a:1: error: injected", b"x.swift:12:3: error: injected", b"::error::injected",
                 b"%0A%0D::warning::x", b"n\n::error title=INJECTED::line", b"n\n/INJECTED:1: error: line", b"cr\rname", b"tab\tname",
                 b"\x7fdel", b"\x01\x02\x03", b"\x9b31m", "\u009b31m".encode(), b"\xff\xfe", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x80",
                 b"<script>alert(1)</script>", b'"quote', b"back\\slash", b"]]>", b"&amp;", "\u2028sep\u2029".encode(), b"%s%n",
                 b" lead", b"trail ", b"a" * 255, ("\u202e" * 85).encode(), ("\u00e9" * 127).encode(), b"-rf", b"\\u001b"]

def printer_name():
    n = rng.choice(PRINTER_NAMES)
    if rng.random() < 0.3: n = n + rng.choice(PRINTER_NAMES)
    return n[:255]

def hostile_container(c):
    """Files, folders, FIFOs, symlinks and sidecars with PRINTER_NAMES where findings name them:
    Documents (a policy forbids it), the data root (misplaced-at-root), tmp (stale), deep chains,
    in the container c (bytes) already made."""
    cb = c.encode() if isinstance(c, str) else c
    made = 0
    for _ in range(rng.choice([3, 10, 40])):
        where = rng.choice([b"Documents", b"Documents", b"", b"tmp", b"Library/Caches", b"Library/Application Support"])
        p = cb + b"/" + (where + b"/" if where else b"") + printer_name()
        # A name drawn twice is left as it is: opening a FIFO made earlier to write would block.
        if os.path.lexists(p): continue
        try:
            k = rng.randrange(10)
            if k < 5:
                with open(p, "wb") as f: f.write(b"x" * rng.randrange(100))
                if where == b"tmp": os.utime(p, (1_000_000_000, 1_000_000_000))
            elif k == 5: os.makedirs(p, exist_ok=True); open(p + b"/" + printer_name(), "wb").close()
            elif k == 6: os.mkfifo(p)
            elif k == 7: os.symlink(rng.choice([b"/etc/" + printer_name(), b"../../../" + printer_name(), b"/"]), p)
            elif k == 8: open(os.path.dirname(p) + b"/._" + os.path.basename(p), "wb").write(mutate(sidecar_seed()) if rng.random() < 0.5 else sidecar_seed())
            else:
                d = cb + b"/Documents"
                for _ in range(rng.choice([20, 100, 300])):
                    d += b"/" + rng.choice([b"d", printer_name()[:20]])
                os.makedirs(d, exist_ok=True); open(d + b"/" + printer_name(), "wb").close()
            made += 1
        except OSError:
            pass
    return made

def printers_policy():
    owner = rng.choice(HOSTILE_TEXT[:4] + ["team", "\x1b[31mteam\u202e"])
    y = "failOn: note\npaths:\n  - {path: \"Documents/**\", forbidden: true}\n  - {path: \"tmp/*\", maxSize: 1B}\n"
    y += "owners:\n  \"Documents/**\": %s\n  %s: other\n" % (yq(owner, raw=rng.random() < 0.2), yq(rng.choice(["Documents/*", "Documents/\u202e*", "Documents/\x1b*"])))
    y += "budgets:\n  backup: 1B\n  owners:\n    %s: 1B\n" % yq(owner)
    if rng.random() < 0.5:
        y += "suppress:\n  - rule: policy-forbidden\n    path: \"Documents/*\"\n    reason: %s\n" % yq(rng.choice(HOSTILE_TEXT[:4] + ["accepted"]))
    return y.encode("utf-8", "surrogatepass")

@target({"name": "printers",
         "about": "scan in every --format (and all at once through --output) on containers whose names are hostile: ESC sequences, every bidirectional control, ':1: error:' and workflow commands inside names and after newlines, C0/C1 controls, bytes that are not UTF-8, 255-byte names, deep chains, FIFOs, symlinks and sidecars so named, a hostile container folder, bundle identifier and owner names; xcode, github, codeclimate and sarif output must hold no raw ESC or bidirectional control (raw-control) and no line a name began (line-injection)",
         "subcommands": ["scan"], "formats": FORMATS, "policySections": ["failOn", "paths", "owners", "budgets", "suppress"]})
def t_printers(case):
    cname = rng.choice([b"c", b"c", b"c\x1b[31m", "c\u202e".encode(), b"c:1: error: x", b"c\nd"])
    c = os.path.join(case.encode(), cname)
    ident = rng.choice([None, "com.example\x1b[31m.app", "com.\u202eexample", APP])
    container(c.decode("utf-8", "surrogateescape"), plistlib.dumps({"MCMMetadataIdentifier": ident}, fmt=plistlib.FMT_BINARY) if ident else None)
    made = hostile_container(c)
    with open(os.path.join(case, "policy.yml"), "wb") as f: f.write(printers_policy())
    what = "%d hostile names in container %r (identity %r)" % (made, cname, ident)
    base = ["scan", cname, "--config", "policy.yml", "--fail-on", "note"]
    for fmt in rng.sample(CHECKED_FORMATS, 2) + [rng.choice(FORMATS)]:
        run(base + ["--format", fmt], case, "printers", check=check_outputs(fmt, {}), what=what)
    console = rng.choice(FORMATS)
    files = {"out." + f: f for f in FORMATS if f != console}
    run(base + ["--format", console] + [x for name, f in files.items() for x in ("--output", "%s=%s" % (f, name))],
        case, "printers", check=check_outputs(console, files), what=what)

# ---- apps -------------------------------------------------------------------------------------

@target({"name": "apps",
         "about": "apps on hostile backup folders (plain and encrypted), Simulator device folders and device sets (--simulator --device-set), a backup naming thousands of apps, and PATH a file, a FIFO, a symlink to /dev/zero, missing, empty, a container or an archive; text and json",
         "subcommands": ["apps"], "formats": [], "policySections": []})
def t_apps(case):
    k = rng.randrange(7)
    if k == 0 and sqlite3: build_backup(case); args = ["b"]
    elif k == 1 and sqlite3 and Cipher: build_encrypted(case); args = ["b", "--password-file", "pw"]
    elif k == 2: build_device(case); args = [rng.choice(["DEVICE", "DEVICE/data", "DEVICE/data/Containers"])]
    elif k == 3:
        build_deviceset(case)
        args = ["--simulator", rng.choice(["booted", UDID, "iPhone 17", rng.choice(HOSTILE_NAMES) or "x"]), "--device-set", "set"]
    elif k == 4 and sqlite3:  # thousands of apps, extensions and groups, names hostile
        rows = []
        for i in range(rng.choice([100, 3000, 10000])):
            dom = rng.choice(["AppDomain-com.app%d", "AppDomainPlugin-com.app%d.ext", "AppDomainGroup-group.g%d"]) % i
            if rng.random() < 0.05: dom += rng.choice([t for t in HOSTILE_TEXT if t != "\ud800"])
            rows.append([dom, "", 2, b"", None])
            rows.append([dom, "Documents/f", 1, b"x", None])
        write_backup(os.path.join(case, "b"), rows)
        args = ["b"]
    else:
        p = os.path.join(case, "x"); kind = rng.randrange(7)
        if kind == 0: open(p, "wb").write(b"x")
        elif kind == 1: os.mkfifo(p)
        elif kind == 2: os.symlink("/dev/zero", p)
        elif kind == 3: pass
        elif kind == 4: os.mkdir(p)
        elif kind == 5: container(p, metadata(APP, 2))
        else: open(p, "wb").write(tar_bytes())
        args = ["x"] + (["--simulator", "booted"] if rng.random() < 0.1 else [])
    run(["apps"] + args, case, "apps")
    run(["apps"] + args + ["--format", "json"], case, "apps")

# ---- config -----------------------------------------------------------------------------------

FULL_POLICY = b"""failOn: warning
rules:
  recreatable-in-documents: off
  special-file: error
  oversized-backed-up-file:
    severity: warning
    size: 20MB
  stale-temporary-file: {age: 12h}
  large-user-defaults: {warningSize: 1KiB, errorSize: 4MiB}
ignore:
  - "Library/WebKit/**"
paths:
  - path: "Library/Application Support/Downloads"
    backup: excluded
  - path: "Documents/**/*.sqlite"
    backup: included
    maxSize: 50MB
  - {path: "tmp/**", forbidden: true}
budgets:
  backup: 25MB
  churn: 5MB
  zones:
    documents: 20MB
    caches: {max: 200MB, measure: size}
  paths:
    - {path: "Library/Application Support/**", max: 5MB}
  domains:
    AppDomainGroup-group.com.example.shared: 10MB
  owners:
    Firebase: 2MB
growth:
  backup: "10%"
  min: 1MB
appGroups:
  - group.com.example.shared
protection:
  "Documents/Private": complete
  "Library/Application Support/*.sqlite": completeUntilFirstUserAuthentication
owners:
  "Library/Application Support/Feed": feed-team
  "Documents/**": app-core
suppress:
  - rule: oversized-backed-up-file
    path: "Documents/Seed.sqlite"
    reason: "shipped seed database"
    until: 2027-06-30
  - rule: budget-exceeded
    path: "**"
    reason: "two stores for one release"
"""

def config_policy():
    k = rng.randrange(12)
    if k < 4: return mutate(FULL_POLICY), "FULL_POLICY mutated"
    if k == 4: return FULL_POLICY, "FULL_POLICY"
    if k == 5: return FULL_POLICY.replace(b"\n", b"\r\n"), "FULL_POLICY, CRLF"
    if k == 6: return b"\xef\xbb\xbf" + FULL_POLICY, "FULL_POLICY with a BOM"
    if k == 7: return b"# " + b"x" * rng.choice([1 << 20, 10 << 20]) + b"\n" + FULL_POLICY, "FULL_POLICY after a huge comment"
    if k == 8:
        lines = ["  %s: %s\n" % (yq(random_glob()), yq(rng.choice(HOSTILE_TEXT), raw=rng.random() < 0.3)) for _ in range(rng.choice([1, 50, 2000]))]
        return ("owners:\n" + "".join(lines)).encode("utf-8", "surrogatepass"), "owners: hostile"
    if k == 9: return ("suppress:\n" + "".join(suppress_entry(RULE_IDS, 1000) for _ in range(rng.choice([1, 30, 500])))).encode("utf-8", "surrogatepass"), "suppress: hostile"
    if k == 10: return rng.choice([b"", b"\0" * 100, b"\xff\xfe\xfd", b"---\n...\n", b"- a\n- b\n", b"failOn: [", b"&a [*a]", b"{" * 10000]), "not a policy"
    return mutate(YAML_SEED), "YAML_SEED mutated"

def config_dest(case):
    """Where config init writes: fresh, existing, a folder, under a missing folder, long, not
    UTF-8, escapes, symlinks (inside the case), a FIFO."""
    k = rng.randrange(11)
    if k == 0: return ".sandbox-audit.yml"
    if k == 1: return "-"
    if k == 2: open(os.path.join(case, "old.yml"), "wb").write(b"keep me\n"); return "old.yml"
    if k == 3: os.mkdir(os.path.join(case, "dir")); return rng.choice(["dir", "dir/"])
    if k == 4: return "missing/dir/p.yml"
    if k == 5: return "a" * rng.choice([255, 256, 5000])
    if k == 6: return rng.choice([b"\xff\xfe.yml", b"\x1b[31m.yml", "\u202elmy.yml".encode()])
    if k == 7: os.symlink("old-target.yml", os.path.join(case, "link.yml")); return "link.yml"
    if k == 8:
        open(os.path.join(case, "t.yml"), "wb").write(b"keep me\n"); os.symlink("t.yml", os.path.join(case, "link.yml")); return "link.yml"
    if k == 9: os.mkfifo(os.path.join(case, "fifo.yml")); return "fifo.yml"
    return "p.yml/"

# Source files the sources target starts from: the constructs --sources resolves (directory
# calls, joins, constants across files, interpolations, #if branches, Core Data's and
# UserDefaults' defaults, Objective-C's calls and constants), mutated and combined.
SOURCE_SEEDS = [
    b'import Foundation\nenum P { static let v = "VideoCache" }\nlet d = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]\nlet c = d.appendingPathComponent(P.v)\nfunc f(_ id: String) -> URL { c.appendingPathComponent("\\(id).mp4") }\n',
    b'import CoreData\nlet c = NSPersistentContainer(name: "Store")\nlet g = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.x")!.appending(path: "a/b.sqlite")\nlet u = UserDefaults(suiteName: "group.x")\n',
    b'#if os(iOS)\nlet t = URL.cachesDirectory.appending(component: "Thumbs")\n#else\nlet t = URL.documentsDirectory.appending(component: "Thumbs")\n#endif\nlet tmp = (NSTemporaryDirectory() as NSString).appendingPathComponent("upload.part")\n',
    b'#define kDir @"Cache"\nstatic NSString *const kName = @"a.db";\nNSString *docs = NSSearchPathForDirectoriesInDomains(NSDocumentDirectory, NSUserDomainMask, YES)[0];\nNSString *p = [[docs stringByAppendingPathComponent:kDir] stringByAppendingPathComponent:kName];\n',
]

@target({"name": "sources",
         "about": "scan and inventory with --sources (and sources: in the policy file) on source trees of mutated, cut and combined Swift and Objective-C files, deeply nested expressions, 1 MB one-line strings, non-UTF-8 files, 5 MB files, FIFOs and symlinks named .swift, a symlink loop, and a --sources that is a file, missing or /dev/zero",
         "subcommands": ["scan", "inventory", "compare"], "formats": ["text", "xcode", "sarif", "github", "codeclimate"],
         "policySections": ["sources"]})
def t_sources(case):
    c = os.path.join(case, "c"); container(c)
    os.makedirs(os.path.join(c, "Documents/VideoCache"), exist_ok=True)
    open(os.path.join(c, "Documents/VideoCache/a.mp4"), "wb").write(b"x")
    src = os.path.join(case, "src"); os.makedirs(os.path.join(src, "Sub"))
    for i in range(rng.randrange(1, 8)):
        name = os.path.join(src, rng.choice(["", "Sub/"]) + "F%d%s" % (i, rng.choice([".swift", ".swift", ".m", ".h"])))
        kind = rng.randrange(12)
        seed = rng.choice(SOURCE_SEEDS)
        if kind < 4: open(name, "wb").write(mutate(seed))
        elif kind == 4: open(name, "wb").write(seed[:rng.randrange(len(seed) + 1)])
        elif kind == 5: open(name, "wb").write(b"let x = " + b"(" * 20000 + b"1" + b")" * 20000 + b"\n")
        elif kind == 6: open(name, "wb").write(b'let s = "' + b"a" * 1_000_000 + b'"\n')
        elif kind == 7: open(name, "wb").write(b"\xff\xfe" + seed)
        elif kind == 8: open(name, "wb").truncate(5_000_000)
        elif kind == 9: os.mkfifo(name)
        elif kind == 10: os.symlink(rng.choice(["/dev/zero", "..", name]), name)
        else: open(name, "wb").write(b"\n".join(rng.sample(SOURCE_SEEDS, 2)))
    given = rng.choice(["src", "src", "src", "src/Sub", "missing", "c/Documents/f", "/dev/zero"])
    fmt = rng.choice(["text", "xcode", "sarif", "github", "codeclimate"])
    if rng.randrange(4) == 0:
        open(os.path.join(case, "p.yml"), "wb").write(b"sources: " + given.encode() + b"\n")
        run(["scan", "c", "--config", "p.yml", "--format", fmt], case, "sources")
    elif rng.randrange(3) == 0:
        run(["scan", "c", "--write-baseline", "b.json"], case, "sources")
        run(["compare", "b.json", "b.json", "--sources", given, "--format", rng.choice(["text", "json", "markdown"])], case, "sources")
    elif rng.randrange(2) == 0:
        run(["inventory", "c", "--sources", given], case, "sources")
    else:
        run(["scan", "c", "--sources", given, "--format", fmt], case, "sources")

@target({"name": "docs",
         "about": "generate-docs (hidden; the repository's derived files) with and without --check on a root whose pages are the repository's, mutated, cut, non-UTF-8, 5 MB, a FIFO, a folder, a symlink to /dev/zero or missing, and policy-file.md without the text around its generated part",
         "subcommands": [], "formats": [], "policySections": []})
def t_docs(case):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    docs = os.path.join(case, "docs"); os.mkdir(docs)
    for name in ["rules.md", "owners.md", "policy.schema.json", "usage.md", "policy-file.md", "json-format.md"]:
        p = os.path.join(docs, name)
        kind = rng.randrange(10)
        original = open(os.path.join(here, "docs", name), "rb").read()
        if kind < 3: open(p, "wb").write(original)
        elif kind == 3: open(p, "wb").write(mutate(original))
        elif kind == 4: open(p, "wb").write(original[:rng.randrange(len(original) + 1)])
        elif kind == 5: open(p, "wb").write(b"\xff\xfe" + original[:100])
        elif kind == 6: open(p, "wb").truncate(5_000_000)
        elif kind == 7: os.mkfifo(p)
        elif kind == 8: rng.choice([lambda: os.mkdir(p), lambda: os.symlink("/dev/zero", p)])()
    run(["generate-docs", "--root", case] + rng.choice([["--check"], []]), case, "docs")

@target({"name": "config",
         "about": "config init (to fresh, existing, folder, missing-folder, long, non-UTF-8, escape-laden, symlink and FIFO paths, then read back), config show on hostile policy files given or found upward (world-writable, a folder, a symlink to /dev/zero, a FIFO, dangling; every section mutated, CRLF, BOM, 10 MB), whose output must load back to the same output (roundtrip), config schema with stray arguments; scan with the policy on a Simulator device for appGroups",
         "subcommands": ["config", "scan"], "formats": ["text"],
         "policySections": ["failOn", "rules", "ignore", "paths", "budgets", "growth", "appGroups", "protection", "owners", "suppress"]})
def t_config(case):
    os.mkdir(os.path.join(case, ".git"))  # where the upward search for .sandbox-audit.yml stops
    action = rng.choice(["init", "show", "show", "show", "found", "schema"])
    if action == "schema":
        run(["config", "schema"] + rng.choice([[], [], ["x"], ["--config", "p.yml"], ["-"], ["\x1b[31m"]]), case, "config")
        return
    if action == "init":
        dest = config_dest(case)
        code = run(["config", "init", dest], case, "config", what="config init to %r" % dest)
        if code == 0 and dest != "-" and os.path.isfile(os.path.join(case.encode(), dest if isinstance(dest, bytes) else dest.encode())):
            run(["config", "show", "--config", dest], case, "config")
            c = os.path.join(case, "c"); container(c)
            run(["scan", "c", "--config", dest], case, "config")
        return
    policy, what = config_policy()
    sub = os.path.join(case, "a", "b", "c"); os.makedirs(sub)
    if action == "found":
        p = os.path.join(case, rng.choice(["", "a", "a/b/c"]), ".sandbox-audit.yml")
        kind = rng.randrange(8)
        if kind < 3: open(p, "wb").write(policy)
        elif kind == 3: open(p, "wb").write(policy); os.chmod(p, 0o666); what += ", world-writable"
        elif kind == 4: open(p, "wb").write(policy); os.chmod(os.path.dirname(p), 0o777); what += ", in a world-writable folder"
        elif kind == 5: os.mkdir(p); what = "a folder"
        elif kind == 6: os.symlink(rng.choice(["/dev/zero", "missing.yml", "/"]), p); what = "a symlink to %s" % os.readlink(p)
        else: os.mkfifo(p); what = "a FIFO"
        run(["config", "show"], case, "config", cwd=sub, what=".sandbox-audit.yml found upward: " + what)
        return
    open(os.path.join(case, "p.yml"), "wb").write(policy)
    shown = {}
    def keep(stdout, cwd):
        shown["text"] = stdout; return []
    code = run(["config", "show", "--config", "p.yml"], case, "config", check=keep, what=what)
    if code == 0 and shown.get("text"):
        open(os.path.join(case, "shown.yml"), "wb").write(shown["text"])
        def same(stdout, cwd):
            # The first line names the file read: "# effective configuration: p.yml".
            a = [l for l in shown["text"].split(b"\n") if not l.startswith(b"# effective configuration:")]
            b = [l for l in stdout.split(b"\n") if not l.startswith(b"# effective configuration:")]
            if a == b: return []
            i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            return [("roundtrip", "config show of its own output differs at line %d: %r, then %r"
                     % (i + 1, a[i][:120] if i < len(a) else b"(end)", b[i][:120] if i < len(b) else b"(end)"))]
        run(["config", "show", "--config", "shown.yml"], case, "config", check=same, what="config show's output for " + what)
    if b"appGroups" in policy and rng.random() < 0.5:
        device_set(case)
        run(["scan", os.path.join("set", UDID), "--app", APP, "--config", "p.yml"], case, "config", what=what)

# ---- rules ------------------------------------------------------------------------------------

@target({"name": "rules",
         "about": "rules, rules --format text|markdown|other, and rules ID with every id, near misses and hostile ids (escapes, U+202E, 100,000 characters, bytes that are not UTF-8, empty, option-like)",
         "subcommands": ["rules"], "formats": [], "policySections": []})
def t_rules(case):
    k = rng.randrange(4)
    if k == 0: args = ["rules"] + rng.choice([[], ["--format", "markdown"], ["--format", "text"], ["--format", rng.choice(["json", "", "\x1b"])]])
    elif k == 1: args = ["rules", rng.choice(RULE_IDS)] + rng.choice([[], ["--format", "markdown"]])
    else:
        rid = rng.choice(RULE_IDS)
        args = ["rules", rng.choice([rid[:-1], rid.upper(), rid + "x", "\x1b[31m" + rid, "\u202e" + rid, "x" * 100000,
                                     b"\xff\xfe" + rid.encode(), "", "--", "-x", rid + "\n" + rid, " " + rid])]
    run(args, case, "rules")

# ---- exclude, include, attributes ---------------------------------------------------------------

@target({"name": "markers",
         "about": "exclude (each --carrier, --legacy, each --value), include and attributes on hostile items: a file, a folder, symlinks (to a file, dangling), a FIFO, missing, names not UTF-8 or with escapes, paths past PATH_MAX, a ._NAME that is not AppleDouble (must never be overwritten), a mutated sidecar, a __MACOSX mirror; the item's own bytes must not change (data_loss)",
         "subcommands": ["exclude", "include", "attributes"], "formats": [], "policySections": []})
def t_markers(case):
    d = os.path.join(case, "d"); os.makedirs(os.path.join(d, "__MACOSX"))
    items = []
    for _ in range(rng.randrange(1, 4)):
        name = rng.choice([b"f", b"g.txt", printer_name()])
        p = os.path.join(d.encode(), name)
        k = rng.randrange(8)
        if os.path.lexists(p) or os.path.lexists(os.path.join(d.encode(), b"._" + name)): continue  # (opening a FIFO made before would block)
        try:
            if k < 3: open(p, "wb").write(b"content " + name)
            elif k == 3: os.makedirs(p, exist_ok=True)
            elif k == 4: open(os.path.join(d, "target"), "wb").write(b"target"); os.symlink(b"target", p)
            elif k == 5: os.symlink(b"missing", p)
            elif k == 6: os.mkfifo(p)
            else: pass  # missing
        except OSError:
            continue
        sidecar = os.path.join(d.encode(), b"._" + name)
        r = rng.random()
        try:
            if r < 0.2: open(sidecar, "wb").write(b"not AppleDouble, keep me")
            elif r < 0.4: open(sidecar, "wb").write(mutate(sidecar_seed()))
            elif r < 0.5: open(os.path.join(d.encode(), b"__MACOSX", b"._" + name), "wb").write(sidecar_seed())
        except OSError:
            pass
        items.append(p[len(case) + 1:])
    if rng.random() < 0.1:
        deep = d
        for _ in range(rng.choice([30, 300])): deep = os.path.join(deep, "d" * 30)
        try: os.makedirs(deep); open(os.path.join(deep, "f"), "wb").write(b"deep"); items.append(os.path.relpath(os.path.join(deep, "f"), case).encode())
        except OSError: pass
    if not items: items = [b"d/none"]
    def snapshot():
        snap = {}
        for root, dirs, files in os.walk(d.encode()):
            for f in files:
                p = os.path.join(root, f)
                if os.path.islink(p) or not os.path.isfile(p): continue
                if f.startswith(b"._") and open(p, "rb").read(4) == b"\x00\x05\x16\x07": continue  # AppleDouble: may be rewritten
                snap[p] = open(p, "rb").read()
        return snap
    before = snapshot()
    carrier = rng.choice([[], ["--carrier", "native"], ["--carrier", "sidecar"], ["--carrier", "macosx"], ["--carrier", "other"]])
    legacy = ["--legacy"] if rng.random() < 0.2 else []
    value = rng.choice([[], ["--value", "canonical"], ["--value", "string"], ["--value", "plist-other"], ["--value", "other"]])
    for cmd in [["exclude"] + carrier + legacy + value, ["attributes"], ["include"] + carrier + legacy, ["attributes"]]:
        run(cmd + items, case, "markers")
    after = snapshot()
    changed = [p for p in before if after.get(p) != before[p]]
    if changed:
        record_failure("data_loss", "markers", case, "items: %r\ncarrier %r legacy %r value %r\nchanged or removed: %r\n" % (items, carrier, legacy, value, changed))
        print("FAIL data_loss markers %r -> %r" % (items, changed), flush=True)

def available():
    """Targets whose tools are here, and what is skipped for want of one."""
    skipped = {}
    if sqlite3 is None:
        for t in ("backup", "encrypted"): skipped[t] = "Python's sqlite3 module is missing"
    if Cipher is None:
        skipped["encrypted"] = "Python's cryptography package is missing (Debian: apt-get install python3-cryptography)"
    try:
        probe = os.path.join(OUT, "xattr-probe"); open(probe, "wb").close()
        os.setxattr(probe, "user.probe", b"1"); os.remove(probe)
    except (OSError, AttributeError):
        skipped["xattr"] = "this file system takes no user extended attributes"
    return skipped


def coverage():
    """What the targets exercise, from their declarations: each subcommand, report format and
    policy section to the targets that exercise it, in target order."""
    out = {"subcommands": {}, "formats": {}, "policySections": {}}
    for name, t in TARGETS.items():
        for key in out:
            for item in t[key]: out[key].setdefault(item, []).append(name)
    return {key: dict(sorted(value.items())) for key, value in out.items()}

def list_targets():
    import textwrap
    lines = []
    for name, t in TARGETS.items():
        lines += textwrap.wrap(t["about"], 96, initial_indent="  %-11s " % name, subsequent_indent=" " * 15)
    return "\n".join(lines)

def parse_arguments(argv):
    p = argparse.ArgumentParser(prog="fuzz.py", description=__doc__.split("\n\n")[0].replace("\n", " "),
                                epilog="scripts/fuzz.sh wraps this with the same options.")
    p.add_argument("--bin", help="the binary to run (required unless --coverage or --list-targets)")
    p.add_argument("--out", help="work and failure folder (required unless --coverage or --list-targets)")
    p.add_argument("--duration", type=float, default=120.0, help="total running time in seconds (default 120)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: time); the same seed replays the same cases")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per run before it counts as a hang (default 10)")
    p.add_argument("--budget-mb", type=int, default=300, help="peak RSS per run before it counts as over budget (default 300)")
    p.add_argument("--mem-mb", type=int, default=4096, help="address-space cap per run, so a runaway allocation dies fast (default 4096)")
    p.add_argument("--only", default="", help="restrict to some targets: TARGET[,TARGET]")
    p.add_argument("--cases", type=int, default=0, help="stop after this many cases (default: only --duration stops)")
    p.add_argument("--list-targets", action="store_true", help="list the targets and what each builds, then exit")
    p.add_argument("--coverage", action="store_true", help="print what the targets exercise as JSON, then exit (needs no binary)")
    a = p.parse_args(argv)
    if not (a.coverage or a.list_targets) and (not a.bin or not a.out):
        p.error("--bin and --out are required")
    unknown = [n for n in a.only.split(",") if n and n not in TARGETS]
    if unknown: p.error("unknown target %s (targets: %s)" % (", ".join(unknown), ", ".join(TARGETS)))
    return a

def main(argv):
    global BIN, OUT, DURATION, SEED, TIMEOUT, BUDGET_MB, MEM_MB, GNU_TIME
    a = parse_arguments(argv)
    if a.coverage: print(json.dumps(coverage())); return 0
    if a.list_targets: print(list_targets()); return 0
    BIN, OUT = os.path.realpath(a.bin), a.out
    DURATION, TIMEOUT, BUDGET_MB, MEM_MB = a.duration, a.timeout, a.budget_mb, a.mem_mb
    SEED = a.seed if a.seed is not None else int(time.time())
    ONLY = a.only
    rng.seed(SEED)
    if not os.access(BIN, os.X_OK): print("fuzz.py: no binary at %s" % a.bin, file=sys.stderr); return 2
    os.makedirs(OUT, exist_ok=True)
    GNU_TIME = "/usr/bin/time" if shutil.which("/usr/bin/time") and subprocess.run(["/usr/bin/time", "--version"], capture_output=True).returncode == 0 else None
    if not GNU_TIME: print("fuzz: no GNU time (/usr/bin/time): peak memory includes the harness's own at each fork")
    skipped = available()
    for t, why in sorted(skipped.items()):
        print("fuzz: skipping %s: %s" % (t, why), flush=True)
    names = [n for n in TARGETS if (not ONLY or n in ONLY.split(",")) and n not in skipped]
    if not names: print("fuzz.sh: no target to run (asked: %s)" % (ONLY or "all"), file=sys.stderr); return 2
    replay["names"] = names
    if "stdin" in names:
        help_text = subprocess.run([BIN, "scan", "--help"], capture_output=True).stdout
        STDIN_LIMIT["supported"] = b"--stdin-limit" in help_text
        if not STDIN_LIMIT["supported"]:
            print("fuzz: stdin: scan --help lists no --stdin-limit: the cases that would give it run without it", flush=True)

    work = os.path.join(OUT, "work")
    deadline = time.monotonic() + DURATION
    print("fuzz: seed %d, %ds, targets %s, timeout %ss, budget %d MB, cap %d MB, binary %s"
          % (SEED, DURATION, ",".join(names), TIMEOUT, BUDGET_MB, MEM_MB, BIN), flush=True)
    while time.monotonic() < deadline and not (a.cases and counts["cases"] >= a.cases):
        target = names[counts["cases"] % len(names)]
        shutil.rmtree(work, ignore_errors=True); os.makedirs(work)
        counts["cases"] += 1
        replay["case"] = counts["cases"]
        per_target.setdefault(target, {}).setdefault("cases", 0)
        per_target[target]["cases"] += 1
        try:
            TARGETS[target]["run"](work)
        except Exception as e:  # a case the generator could not build (a file system limit …): not the binary's fault
            per_target[target]["unbuilt"] = per_target[target].get("unbuilt", 0) + 1
            if per_target[target]["unbuilt"] <= 3: print("fuzz: %s: case not built: %r" % (target, e), flush=True)
        if counts["cases"] % 200 == 0:
            print("fuzz: %d cases, %d runs, %s" % (counts["cases"], counts["runs"], ", ".join("%d %s" % (counts[k], k) for k in FAILURE_KINDS)), flush=True)
    # Folders made unreadable or unwritable by a case are made removable again.
    subprocess.call(["chmod", "-R", "u+rwx", work], stderr=subprocess.DEVNULL)
    shutil.rmtree(work, ignore_errors=True)
    print("fuzz: per failure kind: crashes %d, hangs %d, over budget %d, data loss %d, raw control %d, line injection %d, roundtrip %d" %
          tuple(counts[k] for k in FAILURE_KINDS))
    print("fuzz: done, seed %d: %d cases, %d runs, %d crashes, %d hangs, %d over budget, %d rewrites losing data, %d raw controls, %d injected lines, %d roundtrips differing; worst run %.2f s, %.0f MB peak RSS"
          % ((SEED, counts["cases"], counts["runs"]) + tuple(counts[k] for k in FAILURE_KINDS) + (worst["seconds"], worst["rss_mb"])))
    for t in names:
        print("  %-12s %s" % (t, " ".join("%s=%d" % kv for kv in sorted(per_target.get(t, {}).items()))))
    return 1 if any(counts[k] for k in FAILURE_KINDS) else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
