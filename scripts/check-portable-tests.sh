#!/usr/bin/env bash
# Refuses test code that would fail on a macOS runner for reasons of its environment, not of the
# tool: macOS's tar is bsdtar, its head/touch/sed/stat/date are BSD's, APFS refuses file names
# that are not UTF-8 (EILSEQ), and Darwin has no O_NOATIME. Runs on Linux in CI
# (`scripts/setup.sh test`, `.ci/run`), so a GNU-only idiom is caught before a Mac runs it.
#
#   scripts/check-portable-tests.sh [TESTS_DIR]      (default: Tests)
#
# Every Swift file under TESTS_DIR is read. It fails (exit 1, one line per site: file:line: why) on
#   1. a GNU-only command-line idiom (`head -n -N`, `touch -d @`, `truncate -s`, `sed -i 's…'`,
#      `stat -c`, `date -d`, GNU tar's options through plain `tar`, …) outside a Linux-only block
#      (`#if os(Linux)`, `#if canImport(Glibc)`, `#if !canImport(Darwin)`) and not run through
#      `GNUTar.command` (GNU tar where it is the system's tar);
#   2. a test function that makes a file whose name is not UTF-8 (a byte 0x80-0xFF appended to a
#      path's UTF-8, or printf's \3NN, next to open/mkdir/creat/symlink/rename/touch) without
#      asking `NonUTF8Names` first (it skips, or leaves that file out, where the file system
#      refuses such names);
#   3. a test function that reads an access time (`atimeSpec`, `st_atim`) without asking
#      `AccessTimes` first (it skips where reads update access times).
# A line that is fine for a reason the check cannot see carries `// portable: REASON`.
# Exit 0 when nothing is found, 1 when something is, 2 on a usage error.
set -euo pipefail
dir="${1:-$(cd "$(dirname "$0")/.." && pwd)/Tests}"
[ -d "$dir" ] || { echo "check-portable-tests: no folder $dir" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "check-portable-tests: python3 is needed" >&2; exit 2; }
exec python3 - "$dir" <<'PYTHON'
import os, re, sys

root = sys.argv[1]

# (pattern, why): GNU-only idioms, as they appear inside the Swift strings the tests run.
GNU = [
    (r"\bhead\s+-[nc]\s*-\d", "`head -n -N` / `head -c -N` is GNU head's (BSD head refuses a negative count): use `sed '$d'` or compute the count"),
    (r"\btouch\s+(-\w+\s+)*-d\s*['\"]?@", "`touch -d @EPOCH` is GNU touch's: use `touch -t [[CC]YY]MMDDhhmm[.SS]` or utimensat"),
    (r"\btruncate\s+-s", "`truncate -s` is GNU coreutils' (macOS has no truncate command): call truncate(2)"),
    (r"\bsed\s+(-\w+\s+)*-i\s+(?!''|\"\")['\"-]", "`sed -i EXPR` is GNU sed's (BSD sed takes the next word as the backup suffix): write to a new file, or `sed -i.bak`"),
    (r"\bstat\s+(-\w+\s+)*(-c|--format|--printf)\b", "`stat -c` is GNU stat's (BSD stat uses -f): call stat(2)"),
    (r"\bdate\s+(-\w+\s+)*-d\b", "`date -d` is GNU date's (BSD date uses -j -f)"),
    (r"\bfind\b[^\n]*-printf\b", "`find -printf` is GNU find's"),
    (r"\bxargs\s+(-\w+\s+)*-r\b", "`xargs -r` is GNU xargs'"),
    (r"\bgrep\s+(-\w+\s+)*-\w*P", "`grep -P` is GNU grep's"),
    (r"\bbase64\s+(-\w+\s+)*-w\b", "`base64 -w` is GNU base64's"),
    (r"\bdu\s+(-\w+\s+)*(-\w*b\b|--apparent-size|--bytes)", "`du -b` is GNU du's"),
    (r"\b(tac|nproc|numfmt)\b\s", "GNU coreutils only (not on macOS)"),
    (r"\btar\b[^\"\n]*--(xattrs-include|sparse|transform|sort=|mtime=|hard-dereference|owner=|group=)",
     "a GNU tar option through plain `tar` (macOS's tar is bsdtar): run it through `GNUTar.command`, or use bsdtar's form"),
    (r"--xattrs-include", "`--xattrs-include` is GNU tar's (bsdtar refuses it): run it through `GNUTar.command`"),
]
GNU = [(re.compile(p), why) for p, why in GNU]
LINUX_IF = re.compile(r"^\s*#if\s+(os\(Linux\)|canImport\(Glibc\)|!canImport\(Darwin\)|!os\(macOS\))\s*$")
IF = re.compile(r"^\s*#if\b")
ELSE = re.compile(r"^\s*#(else|elseif)\b")
ENDIF = re.compile(r"^\s*#endif\b")
GNU_TAR = re.compile(r"GNUTar\.command|\\\((gnu|\$0)\)")
MARK = re.compile(r"//\s*portable:\s*\S")
# A member function (indented at most 4 spaces): the unit a guard covers.
FUNC = re.compile(r"^(\s{0,4})((@\w+|private|fileprivate|static|class|override|final|package|public|internal|mutating)\s+)*func\s")
HIGH_NAME = re.compile(r"utf8\)\s*\+\s*\[\s*0x[89A-Fa-f][0-9A-Fa-f]|printf\s+'[^']*\\\\\\\\(3[0-7][0-7]|2[0-7][0-7]|x[89A-Fa-f])")
MAKES = re.compile(r"\b(open|mkdir|creat|symlink|rename|mkfifo)\(\$0|\b(open|mkdir|creat|symlink|mkfifo)\(\w+|\btouch\s|>\s*\"\$\(printf")
ATIME = re.compile(r"\batimeSpec\b|\bst_atim(espec)?\b")

problems = []
for base, dirs, files in os.walk(root):
    dirs.sort()
    for name in sorted(files):
        if not name.endswith(".swift"):
            continue
        path = os.path.join(base, name)
        rel = os.path.relpath(path, os.path.dirname(os.path.abspath(root)))
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        # 1. line by line, with the #if blocks that are Linux-only
        stack = []  # one bool per open #if: is this branch Linux-only?
        for n, line in enumerate(lines, 1):
            if LINUX_IF.match(line):
                stack.append(True); continue
            if IF.match(line):
                stack.append(False); continue
            if ELSE.match(line) and stack:
                stack[-1] = False; continue
            if ENDIF.match(line) and stack:
                stack.pop(); continue
            if any(stack) or MARK.search(line) or line.lstrip().startswith("//"):
                continue
            for pattern, why in GNU:
                if pattern.search(line) and not (GNU_TAR.search(line) and "tar" in why):
                    problems.append(f"{rel}:{n}: {why}")
                    break
        # 2 and 3: function by function
        starts = [i for i, l in enumerate(lines) if FUNC.match(l)] + [len(lines)]
        for a, b in zip(starts, starts[1:]):
            body = lines[a:b]
            text = "\n".join(body)
            if "#if os(Linux)" in text or "#if canImport(Glibc)" in text:
                continue
            high = [a + i + 1 for i, l in enumerate(body) if HIGH_NAME.search(l) and not MARK.search(l)]
            if high and MAKES.search(text) and "NonUTF8Names." not in text:
                problems.append(f"{rel}:{high[0]}: makes a file whose name is not UTF-8 (APFS refuses it: EILSEQ) without asking NonUTF8Names first")
            if "Support" + os.sep not in path:
                at = [a + i + 1 for i, l in enumerate(body) if ATIME.search(l) and not MARK.search(l)]
                if at and "AccessTimes." not in text:
                    problems.append(f"{rel}:{at[0]}: asserts an access time without asking AccessTimes first (Darwin has no O_NOATIME)")

for p in problems:
    print(p)
if problems:
    print(f"check-portable-tests: {len(problems)} site(s) would fail on a macOS runner (see the header of scripts/check-portable-tests.sh)", file=sys.stderr)
    sys.exit(1)
print("check-portable-tests: no GNU-only idiom, unguarded non-UTF-8 file name or access-time assertion in " + os.path.relpath(root))
PYTHON
