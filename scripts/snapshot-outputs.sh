#!/bin/sh
# Every output the tool writes for a fixed set of inputs, into one folder, so that two builds can
# be compared byte for byte (`diff -r`): what a change that must not alter behaviour is checked
# with. Not run by CI.
#
#   scripts/snapshot-outputs.sh inputs DIR              makes the inputs once (archives of the
#                                                       samples, a tar with links, a FIFO and a
#                                                       sparse file, a policy file, a baseline,
#                                                       a backup folder with odd rows)
#   scripts/snapshot-outputs.sh BIN DIR OUT [TREE]      runs BIN on them (and on TREE, a large
#                                                       container such as benchmark.sh's) into OUT
#
# Then: scripts/snapshot-outputs.sh OLD_BIN DIR before TREE; scripts/snapshot-outputs.sh NEW_BIN DIR
# after TREE; diff -r before after. Inputs are made with fixed times, and the outputs name them
# by the same paths, so the two runs are comparable. The HTML report's scan time is normalised.
#
# Needs perl and the GNU tools (find -printf, sed -i, tar --sparse, truncate, sha256sum): Linux, or macOS
# with Homebrew's findutils, gnu-sed, gnu-tar and coreutils first on PATH under their plain names.
set -eu
for gnu in find sed tar; do
    "$gnu" --version 2>/dev/null | grep GNU >/dev/null \
        || { echo "snapshot-outputs: needs GNU $gnu (Linux; macOS: brew install findutils gnu-sed gnu-tar coreutils, with their gnubin folders first on PATH)" >&2; exit 2; }
done
for tool in truncate sha256sum python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "snapshot-outputs: needs $tool (GNU coreutils)" >&2; exit 2; }
done
repo="$(cd "$(dirname "$0")/.." && pwd)"
S="$repo/sample-containers"
# A backup folder (scripts/make-backup.py, 300 files, plus rows of every unusual shape an MBFile
# blob can take: scripts/bench/add-odd-rows.py) in DIR/backup; made when missing, also in BIN mode
# (inputs made before it was added lack it).
make_backup() {
    [ -f "$1/backup/Manifest.db" ] && return 0
    rm -rf "$1/backup.part"
    python3 "$repo/scripts/make-backup.py" "$1/backup.part" 300 >/dev/null
    python3 "$repo/scripts/bench/add-odd-rows.py" "$1/backup.part"
    mv "$1/backup.part" "$1/backup"
}
if [ "$1" = inputs ]; then
    I="$2"; mkdir -p "$I"; cd "$I"
    rm -rf src && mkdir -p src/links/Documents src/links/tmp
    cp -R "$S/Misbehaving/." src/Misbehaving 2>/dev/null || cp -R "$S/MisbehavingDevice/data/Containers/Data/Application/"*/. src/Misbehaving
    printf 'hello\n' > src/links/Documents/a.txt
    ln src/links/Documents/a.txt src/links/Documents/b.txt
    ln -s a.txt src/links/Documents/c.txt
    mkfifo src/links/tmp/pipe
    truncate -s 8M src/links/Documents/sparse.bin && printf 'end' >> src/links/Documents/sparse.bin
    find src -exec touch -h -d @1700000000 {} +
    tar -C src -czf Misbehaving.tar.gz Misbehaving
    (cd src && zip -qry ../Misbehaving.zip Misbehaving)
    tar -C src -czf links.tar.gz links
    tar -C src --sparse -czf sparse.tar.gz links
    make_backup "$I"
    printf 'rules:\n  volatile-store: off\n  stale-temporary-file: note\nignore:\n  - "Library/Caches/**"\nbudgets:\n  backup: 1MB\n' > policy.yml
    echo "inputs in $I"
    exit 0
fi
B="$1"; I="$2"; O="$3"; T="${4:-}"
mkdir -p "$O"
make_backup "$I"
[ -f "$I/baseline.json" ] || "$B" scan "$S/Misbehaving" --write-baseline "$I/baseline.json" >/dev/null 2>&1 || true
run() { out="$1"; shift; "$B" "$@" > "$O/$out" 2>&1 && echo "exit 0" >> "$O/$out" || echo "exit $?" >> "$O/$out"; }
# Every registered format, as the binary's own help lists them (ReportFormat.allCases).
formats=$("$B" scan --help | perl -0ne 'print $1 if /--format <format>.*?\(values: ([^)]*)\)/s' | tr ',' ' ')
[ -n "$formats" ] || { echo "snapshot-outputs: $B scan --help lists no formats" >&2; exit 2; }
for F in $formats; do
    for n in Misbehaving WellBehaved Example.xcappdata Example.xcappdata.tar.gz; do run "$n.scan.$F" scan --format $F --color never "$S/$n"; done
    for a in Misbehaving.tar.gz Misbehaving.zip links.tar.gz sparse.tar.gz; do run "in-$a.scan.$F" scan --format $F --color never "$I/$a"; done
    run "device.scan.$F" scan --format $F --color never --app com.example.misbehaving --app-group group.com.example.misbehaving "$S/MisbehavingDevice"
    run "policy.scan.$F" scan --format $F --color never --config "$I/policy.yml" "$S/Misbehaving"
    run "backup.scan.$F" scan --format $F --color never --app com.example.bench --app-group group.example.bench "$I/backup"
    run "policy-baseline.scan.$F" scan --format $F --color never --config "$I/policy.yml" --baseline "$I/baseline.json" "$S/Misbehaving"
done
for J in failure skipped pass; do run "junit-$J.xml" scan --format junit --junit-warnings $J "$S/Misbehaving"; done
run "color.text" scan --color always "$S/Misbehaving"
for n in Misbehaving WellBehaved Example.xcappdata.tar.gz; do run "$n.inventory" inventory "$S/$n"; done
for a in Misbehaving.zip links.tar.gz sparse.tar.gz; do run "in-$a.inventory" inventory "$I/$a"; done
run "device.inventory" inventory --app com.example.misbehaving "$S/MisbehavingDevice"
run "backup.inventory" inventory --app com.example.bench --app-group group.example.bench "$I/backup"
run "backup-sim-update.txt" simulate update --app com.example.bench "$I/backup"
for ev in update restore purge all; do
    run "sim-$ev.txt" simulate $ev "$S/Misbehaving"
    for a in Misbehaving.tar.gz links.tar.gz; do
        into="$O/.into"; rm -rf "$into"
        "$B" simulate $ev "$I/$a" --into "$into" --verify 2>&1 | sed "s#$into#INTO#g" > "$O/into-$ev.$a.out" || true
        if [ -d "$into" ]; then
            (cd "$into" && find . -printf '%y %m %s %n %p -> %l\n' | LC_ALL=C sort > "$O/into-$ev.$a.list"
             find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum > "$O/into-$ev.$a.sha256")
            chmod -R u+rwx "$into"; rm -rf "$into"
        fi
    done
done
if [ -n "$T" ]; then
    run tree.scan.json scan --format json "$T"
    run tree.inventory inventory "$T"
fi
sed -i -E 's/scanned [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC/scanned TIME UTC/' "$O"/*.html
echo "outputs in $O ($(ls "$O" | wc -l) files)"
