#!/usr/bin/env bash
# The style the tools hold: `swift format lint --strict` with the committed .swift-format (4
# spaces, 120 columns) over Sources/, Tests/, Plugin/ and Package.swift, and what the formatter
# cannot hold alone: no line over 120 bytes and no Swift file over 400 lines. A long string
# is split (a multi-line literal with `\` line continuations keeps its text), a long file moves
# members to an extension file named for what they do. `scripts/setup.sh test` runs it before
# the suite. Fix the formatting with:
#
#   swift format format -i -r --configuration .swift-format Sources Tests Plugin Package.swift
set -euo pipefail
cd "$(dirname "$0")/.."
if ! swift format --version >/dev/null 2>&1; then
    echo "check-format: skipped: this toolchain has no 'swift format' (Swift 6 toolchains ship it)" >&2
    exit 3
fi
paths=(Sources Tests Package.swift)
[ -d Plugin ] && paths+=(Plugin)
status=0
swift format lint --strict -r --configuration .swift-format "${paths[@]}" || status=1
files=$(find Sources Tests Plugin -name '*.swift' 2>/dev/null | sort)
# Bytes, as a terminal or a diff counts columns at worst; a URL alone in a string literal cannot be
# split (the release scripts grep for it whole).
long=$(printf '%s\n' $files | LC_ALL=C xargs awk 'length($0) > 120 && $0 !~ /^[ \t]*"https:\/\/[^" ]+",?$/ {
    print FILENAME ":" FNR ": " length($0) " bytes" }' || true)
if [ -n "$long" ]; then
    echo "check-format: lines over 120 bytes:" >&2
    printf '%s\n' "$long" >&2
    status=1
fi
big=$(printf '%s\n' $files | xargs wc -l | awk '$2 != "total" && $1 > 400 { print $2 ": " $1 " lines" }')
if [ -n "$big" ]; then
    echo "check-format: files over 400 lines:" >&2
    printf '%s\n' "$big" >&2
    status=1
fi
[ "$status" -eq 0 ] && echo "check-format: swift format lint, lines ≤ 120 bytes, files ≤ 400 lines: clean"
exit "$status"
