#!/usr/bin/env bash
# What can be checked of the macOS build without a Mac: the C layer and every Darwin call of
# Sources/SandboxAuditSystem compiled with `zig cc` (PyPI's `ziglang`, which bundles the macOS
# SDK's libc headers) for aarch64-macos.13.0 and x86_64-macos.13.0, the package's floor
# (Package.swift: .macOS(.v13); mkfifoat needs 13, and the check shows 12 refuses it).
#
#   scripts/darwin-check.sh [SWIFT_SOURCES]   exit 0: all compiled; 1: something did not; 3: skipped
#                                    (no zig: `python3 -m pip install ziglang`, or ZIG=/path/to/zig)
#   SWIFT_SOURCES: the Swift code whose C names are derived (default Sources/SandboxAuditSystem)
#
# Compiled, with -Werror and the availability warnings:
#   1. Sources/CSystem/CSystem.c;
#   2. Sources/CLibArchive/shim.h, with this machine's archive.h (Debian: libarchive-dev; the
#      API is the same on every platform);
#   3. scripts/darwin-check/darwin_calls.c: every Darwin call and constant of SandboxAuditSystem
#      in the argument shapes the Swift code passes (xattr.h beside it declares the xattr calls,
#      which zig's headers lack).
# And derived from the Swift sources, so that the list cannot drift: every name the code outside
# its Linux-only blocks calls or reads (`name(`, `CONSTANT`) that the macOS headers declare must
# be made in darwin_calls.c, and none that only Linux's headers declare may be used there.
# It checks C declarations and availability only: Swift's ClangImporter, Foundation and SwiftPM
# are not exercised (the macOS job of .github/workflows/ci.yml builds for real).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
here=$root/scripts/darwin-check
swift_sources="${1:-$root/Sources/SandboxAuditSystem}"
say() { echo "darwin-check: $*"; }

if [ -n "${ZIG:-}" ]; then zig=("$ZIG")
elif command -v zig >/dev/null 2>&1; then zig=(zig)
elif python3 -c 'import ziglang' >/dev/null 2>&1; then zig=(python3 -m ziglang)
else say "skipped: no zig (python3 -m pip install ziglang, or ZIG=/path/to/zig)"; exit 3
fi
archive_h=$(printf '#include <archive.h>\n' | cc -E -x c - 2>/dev/null | sed -n 's/^# [0-9]* "\(.*\/archive\.h\)".*/\1/p' | head -1 || true)
[ -n "$archive_h" ] || archive_h=/usr/include/archive.h
[ -f "$archive_h" ] || { say "skipped: no archive.h (Debian: apt-get install libarchive-dev)"; exit 3; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/la"
cp "$archive_h" "$(dirname "$archive_h")/archive_entry.h" "$work/la/"
printf '#include "%s/Sources/CLibArchive/shim.h"\nint main(void){ locale_t l = sandbox_audit_utf8_ctype_locale(); uselocale(l); return (int)sandbox_audit_ae_ifreg; }\n' "$root" > "$work/la/shim.c"

flags=(-Wall -Werror -Wunguarded-availability-new -Wunguarded-availability)
status=0
for target in aarch64-macos.13.0 x86_64-macos.13.0; do
    for what in csystem shim calls; do
        case $what in
            csystem) args=(-I "$root/Sources/CSystem/include" -c "$root/Sources/CSystem/CSystem.c") ;;
            shim)    args=(-I "$work/la" -c "$work/la/shim.c") ;;
            calls)   args=(-I "$here" -c "$here/darwin_calls.c") ;;
        esac
        if out=$(cd "$work" && "${zig[@]}" cc -target "$target" "${flags[@]}" "${args[@]}" -o /dev/null 2>&1); then
            say "OK    $target $what"
        else
            say "FAIL  $target $what"; echo "$out" | head -8; status=1
        fi
    done
done
if (cd "$work" && "${zig[@]}" cc -target aarch64-macos.12.0 -Werror=unguarded-availability-new -I "$here" -c "$here/darwin_calls.c" -o /dev/null) >/dev/null 2>&1; then
    say "FAIL  aarch64-macos.12.0 calls compiled: mkfifoat needs macOS 13, so the floor is not what keeps it legal"; status=1
else
    say "OK    aarch64-macos.12.0 calls refused (mkfifoat needs macOS 13, as Package.swift's .macOS(.v13) says)"
fi

# The names the Swift code uses, outside its Linux-only blocks.
python3 - "$swift_sources" > "$work/names" <<'PYTHON'
import os, re, sys
names = set()
linux = re.compile(r"^\s*#if\s+(os\(Linux\)|canImport\(Glibc\)|!canImport\(Darwin\))")
for base, _, files in os.walk(sys.argv[1]):
    for f in files:
        if not f.endswith(".swift"):
            continue
        stack = []  # per open #if: "linux" (a Linux-only branch), "darwin" (canImport(Darwin)), "other"
        for line in open(os.path.join(base, f), encoding="utf-8"):
            s = line.strip()
            if s.startswith("#if"):
                stack.append("linux" if linux.match(line) else "darwin" if s.startswith("#if canImport(Darwin)") or s.startswith("#if os(macOS)") else "other"); continue
            if s.startswith("#else") or s.startswith("#elseif"):
                if stack: stack[-1] = "linux" if stack[-1] == "darwin" and s.startswith("#else") else "other"
                continue
            if s.startswith("#endif"):
                if stack: stack.pop()
                continue
            if "linux" in stack or s.startswith("//"):
                continue
            code = re.sub(r'"(\\.|[^"\\])*"', '""', line.split("//")[0])
            for m in re.finditer(r"(?<![.\w])([a-z_][a-z0-9_]*)\(", code):
                if not re.search(r"\bfunc\s+$", code[:m.start()]):
                    names.add(m.group(1))
            for m in re.finditer(r"(?<![.\w])([A-Z][A-Z0-9]*_[A-Z0-9_]+|E[A-Z]{3,})\b", code):
                names.add(m.group(1))
print("\n".join(sorted(names)))
PYTHON
# Which of those names a target's headers declare: one probe line each, `(void)(NAME);`, and a
# name is declared when its line compiles without an error (a Swift function, a type or a
# keyword does not). Swift's own functions that C also has are not C calls here.
swift_own=" abs min max "
declared() {  # declared TARGET HEADER...: the names of $work/names that those headers declare
    local target="$1"; shift
    local probe="$work/probe-$target.c" h n=0
    { for h in "$@"; do echo "#include <$h>"; done
      echo '#include "CSystem.h"'
      echo 'void probe(void) {'
    } > "$probe"
    local first=$(( $# + 2 ))
    while read -r name; do echo "(void)($name);" >> "$probe"; done < "$work/names"
    echo '}' >> "$probe"
    local out
    # _GNU_SOURCE on Linux: every name glibc can declare counts as Linux's.
    local gnu=(); case "$target" in *linux*) gnu=(-D_GNU_SOURCE) ;; esac
    out=$(cd "$work" && "${zig[@]}" cc -target "$target" "${gnu[@]}" -ferror-limit=0 -Qunused-arguments -fsyntax-only -w -I "$here" -I "$root/Sources/CSystem/include" "$probe" 2>&1 || true)
    if echo "$out" | grep -q "fatal error"; then say "FAIL  the probe for $target did not compile:"; echo "$out" | grep "fatal error" | head -3 >&2; return 1; fi
    local bad
    bad=$(echo "$out" | sed -n "s|^.*probe-$target\.c:\([0-9]*\):[0-9]*: error:.*|\1|p" | sort -un)
    local line=$first
    while read -r name; do
        line=$((line + 1))
        case "$swift_own" in *" $name "*) continue ;; esac
        echo "$bad" | grep -qx "$line" || echo "$name"
    done < "$work/names"
}
# declared_alone TARGET NAME HEADER...: NAME compiles alone against those headers. The one-probe
# pass above reads errors back by line, and under load an error line has now and then been
# lost (a Swift word such as `throws` then looked declared): a name that would fail the check
# is confirmed by a probe of its own before it is reported.
declared_alone() {
    local target="$1" name="$2"; shift 2
    local probe="$work/alone-$target-$name.c" h
    { for h in "$@"; do echo "#include <$h>"; done
      echo '#include "CSystem.h"'
      echo "void probe(void) { (void)($name); }"
    } > "$probe"
    local gnu=(); case "$target" in *linux*) gnu=(-D_GNU_SOURCE) ;; esac
    # An error on the name's line, the last (zig's own "failed to rename" of the object
    # -fsyntax-only never writes is reported on line 1, and is not about the name).
    local out
    out=$(cd "$work" && "${zig[@]}" cc -target "$target" "${gnu[@]}" -Qunused-arguments -fsyntax-only -w -I "$here" -I "$root/Sources/CSystem/include" "$probe" 2>&1 || true)
    ! grep -q "alone-$target-$name\.c:$(( $# + 2 )):[0-9]*: error" <<<"$out"
}
mac_headers=$(sed -n 's/^#include <\(.*\)>.*/\1/p' "$here/darwin_calls.c" | tr '\n' ' ')
declared aarch64-macos.13.0 $mac_headers xattr.h > "$work/mac" || status=1
missing=()
while read -r n; do
    grep -qw -- "$n" "$here/darwin_calls.c" || case "$n" in sandbox_audit_*) ;; *)
        declared_alone aarch64-macos.13.0 "$n" $mac_headers xattr.h && missing+=("$n") ;; esac
done < "$work/mac"
if [ "${#missing[@]}" -gt 0 ]; then
    say "FAIL  Sources/SandboxAuditSystem uses ${missing[*]}, which scripts/darwin-check/darwin_calls.c does not make: add each there, in the shape the Swift code passes"
    status=1
else
    say "OK    every C name of Sources/SandboxAuditSystem outside its Linux-only blocks ($(wc -l < "$work/mac") of them) is made in darwin_calls.c"
fi
# Declared by glibc's headers (the macOS list less the Darwin-only sys/sysctl.h and crt_externs.h)
# and not by macOS's, yet used outside a Linux-only block: a
# Linux-only path on macOS.
linux_headers="${mac_headers//sys\/sysctl.h/}"; linux_headers="${linux_headers//crt_externs.h/} sys/xattr.h"
declared x86_64-linux-gnu.2.31 $linux_headers > "$work/linux" || status=1
linux_only=$(comm -13 <(sort "$work/mac") <(sort "$work/linux") | grep -v '^sandbox_audit_' | while read -r n; do
    declared_alone x86_64-linux-gnu.2.31 "$n" $linux_headers && ! declared_alone aarch64-macos.13.0 "$n" $mac_headers xattr.h && echo "$n"
done || true)
if [ -n "$linux_only" ]; then
    say "FAIL  used outside a Linux-only block but declared only by Linux's headers: $(echo $linux_only)"; status=1
else
    say "OK    no name of Sources/SandboxAuditSystem outside its Linux-only blocks is Linux's alone"
fi
exit $status
