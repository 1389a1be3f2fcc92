#!/bin/sh
# Regenerates the sample containers in sample-containers/ from scratch.
#
#   scripts/make-samples.sh [PATH-TO-sandbox-audit]
#
# Without an argument it builds the CLI with `swift build` (set SCRATCH_PATH to build
# elsewhere than .build). Plain shell plus the CLI's `exclude --carrier sidecar`, which
# writes every backup attribute into an AppleDouble `._NAME` file beside its item: git
# carries those, and native extended attributes it would drop.
#
# Deterministic: fixed names, fixed contents (text, or runs of zero bytes), no random bytes
# and no timestamps inside files. Git does not keep modification times, so nothing here
# depends on them (stale-temporary-file is deliberately not exercised).
#
# Only the sample folders are removed and rebuilt; README.md and .gitignore stay.
# Misbehaving lives in a Simulator device folder, MisbehavingDevice/, beside its extension's and
# its App Group's containers; sample-containers/Misbehaving is a symlink to it.
# The expected findings are listed in sample-containers/README.md and asserted by
# Tests/SandboxAuditTests/SampleContainerTests.swift: change all three together.
#
# Needs GNU tar for the reproducible Example.xcappdata.tar.gz (--sort, --mtime, --owner): Linux's
# tar, or on macOS Homebrew's gnu-tar (gtar). Everything else is POSIX sh and tools.
set -eu
GNUTAR=
for t in tar gtar; do
    if "$t" --version 2>/dev/null | grep '^tar (GNU tar)' >/dev/null; then GNUTAR=$t; break; fi
done
[ -n "$GNUTAR" ] || { echo "make-samples: needs GNU tar (Debian: apt-get install tar; macOS: brew install gnu-tar)" >&2; exit 2; }
export LC_ALL=C
umask 022

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/sample-containers"

if [ $# -ge 1 ]; then
    BIN=$1
else
    cd "$ROOT"
    if [ -n "${SCRATCH_PATH:-}" ]; then
        swift build --scratch-path "$SCRATCH_PATH" --product sandbox-audit >&2
        BIN="$(swift build --scratch-path "$SCRATCH_PATH" --show-bin-path)/sandbox-audit"
    else
        swift build --product sandbox-audit >&2
        BIN="$(swift build --show-bin-path)/sandbox-audit"
    fi
fi
case $BIN in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
[ -x "$BIN" ] || { echo "make-samples: $BIN is not an executable" >&2; exit 2; }

# --- helpers ------------------------------------------------------------------------------

# text FILE: writes standard input to FILE, creating its folder.
text() { mkdir -p "$(dirname "$1")"; cat > "$1"; }

# zeros FILE SIZE: SIZE zero bytes, written out (not sparse: the same as a git checkout).
zeros() { mkdir -p "$(dirname "$1")"; head -c "$2" /dev/zero > "$1"; }

# stub FILE SIZE HEADER: a file that starts like its format (printf escapes in HEADER) and is
# padded with zero bytes to SIZE.
stub() {
    mkdir -p "$(dirname "$1")"
    printf "$3" > "$1"
    have=$(wc -c < "$1")
    head -c $(($2 - have)) /dev/zero >> "$1"
}
sqlite() { stub "$1" "$2" 'SQLite format 3\000'; }

# mark [exclude options] PATH...: the attribute, in a ._NAME sidecar.
mark() { "$BIN" exclude --carrier sidecar "$@" > /dev/null; }

# Simulator container metadata: .com.apple.mobile_container_manager.metadata.plist.
# The content class is 2 for an app's data container (the default), 7 for an App Group's.
container_metadata() { # DIR IDENTIFIER UUID [CLASS]
    text "$1/.com.apple.mobile_container_manager.metadata.plist" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>MCMMetadataContentClass</key>
	<integer>${4:-2}</integer>
	<key>MCMMetadataIdentifier</key>
	<string>$2</string>
	<key>MCMMetadataSchemaVersion</key>
	<integer>1</integer>
	<key>MCMMetadataUUID</key>
	<string>$3</string>
</dict>
</plist>
EOF
}
simulator_metadata() { # DIR BUNDLE-ID UUID
    container_metadata "$1" "$2" "$3"
    text "$1/SystemData/com.apple.SafariViewService/Library/Preferences/com.apple.SafariViewService.plist" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict/>
</plist>
EOF
}

preferences() { # FILE, then key/value XML on standard input
    mkdir -p "$(dirname "$1")"
    {
        printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
            '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">' \
            '<plist version="1.0">' '<dict>'
        cat
        printf '%s\n' '</dict>' '</plist>'
    } > "$1"
}

# large_preferences FILE KEY LENGTH [XML]: a preferences plist whose KEY holds LENGTH base64
# characters of zero bytes ("AAAA…", so git keeps it in a few kB), then XML (more keys, with
# printf escapes).
large_preferences() {
    mkdir -p "$(dirname "$1")"
    {
        printf '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        printf '<plist version="1.0">\n<dict>\n\t<key>%s</key>\n\t<data>' "$2"
        head -c "$3" /dev/zero | tr '\000' 'A'
        printf "</data>\\n${4:-}</dict>\\n</plist>\\n"
    } > "$1"
}

mkdir -p "$OUT"
rm -rf "$OUT/WellBehaved" "$OUT/Misbehaving" "$OUT/MisbehavingDevice" "$OUT/Example.xcappdata" "$OUT/Example.xcappdata.tar.gz"

# --- WellBehaved: a Simulator container that follows every rule ---------------------------
W="$OUT/WellBehaved"
simulator_metadata "$W" com.example.wellbehaved 8C1B2E5A-3D4F-4A6B-9C7D-0E1F2A3B4C5D

# User documents: backed up, kept on update and restore.
text "$W/Documents/Notes/Welcome.md" <<'EOF'
# Welcome

Notes you write here are kept in Documents: backed up, kept on update and on restore.
EOF
text "$W/Documents/Notes/Trip to Lisbon.md" <<'EOF'
# Trip to Lisbon

- Tram 28 early in the morning
- Pasteis de nata in Belem
- Miradouro da Senhora do Monte at sunset
EOF
stub "$W/Documents/Attachments/sketch-0001.png" 2048 '\211PNG\r\n\032\n'

# The app's own small database in Application Support: backed up, as it should be.
sqlite "$W/Library/Application Support/Notes.sqlite" 8192

# Downloaded support data in its own subfolder, excluded from backup (canonical value) by a
# sidecar on the folder. The pack is over the 1 MB unexcluded-support-data threshold: the
# exclusion is what keeps it quiet.
text "$W/Library/Application Support/Downloaded/manifest.json" <<'EOF'
{"packs":[{"id":"starter","file":"Packs/starter-pack.zip","size":1100000}],"schema":1}
EOF
zeros "$W/Library/Application Support/Downloaded/Packs/starter-pack.zip" 1100000
mark "$W/Library/Application Support/Downloaded"

preferences "$W/Library/Preferences/com.example.wellbehaved.plist" <<'EOF'
	<key>didCompleteOnboarding</key>
	<true/>
	<key>editorFontSize</key>
	<integer>17</integer>
	<key>preferredTheme</key>
	<string>system</string>
EOF

text "$W/Library/Cookies/Cookies.binarycookies" <<'EOF'
cook
EOF

# Caches: URL cache and thumbnails, where backup never goes.
sqlite "$W/Library/Caches/com.example.wellbehaved/Cache.db" 4096
stub "$W/Library/Caches/Thumbnails/sketch-0001@2x.png" 1024 '\211PNG\r\n\032\n'

# tmp/ stays empty: a well-behaved app deletes its temporary files (and git keeps no empty folder).

# --- Misbehaving: a Simulator container with realistic mistakes ---------------------------
# Rules are tested by their own examples (RuleExampleTests), not by this sample: a new rule
# needs no change here.
# It sits in a Simulator device folder with its extension's and App Group's containers, so that
# `scan --app com.example.misbehaving --app-group group.com.example.misbehaving
# sample-containers/MisbehavingDevice` audits the app's whole backup.
CONTAINERS="$OUT/MisbehavingDevice/data/Containers"
M_RELATIVE="MisbehavingDevice/data/Containers/Data/Application/2F6A9D14-7B3C-4E58-A1D2-6C0B8E4F3A97"
M="$OUT/$M_RELATIVE"
simulator_metadata "$M" com.example.misbehaving 2F6A9D14-7B3C-4E58-A1D2-6C0B8E4F3A97
ln -s "$M_RELATIVE" "$OUT/Misbehaving"

# Launch snapshots the system writes: not backed up (Library/SplashBoard), no finding.
stub "$M/Library/SplashBoard/Snapshots/sceneID:com.example.misbehaving-default/downscaled/3F2A@2x.ktx" 40960 '\253KTX 11\273\r\n\032\n'

# misplaced-at-root: podcast downloads written beside Documents.
zeros "$M/Downloads/episode-012.mp3" 32768
zeros "$M/Downloads/episode-013.mp3" 24576

# oversized-backed-up-file (warning, in Documents) and recreatable-in-documents: a
# downloaded video cache kept in Documents.
zeros "$M/Documents/VideoCache/trailer-1080p.mp4" 10000000
text "$M/Documents/VideoCache/index.json" <<'EOF'
{"trailer-1080p.mp4":{"source":"https://cdn.example.com/trailers/1080p.mp4"}}
EOF

# excluded-user-data: the user's drafts excluded as if they were re-creatable.
text "$M/Documents/Drafts/Untitled 3.md" <<'EOF'
Half-written letter to the landlord about the heating.
EOF
text "$M/Documents/Drafts/Shopping list.md" <<'EOF'
- oat milk
- lemons
EOF
mark "$M/Documents/Drafts"

# symlink-escapes-container: an absolute link into the container path of an earlier install.
text "$M/Documents/Projects/Garden/plan.md" <<'EOF'
# Garden
Raised beds along the south fence; tomatoes, basil, beans.
EOF
ln -s "/var/mobile/Containers/Data/Application/5B0E7C1A-2D3F-4E5A-8B9C-1D2E3F4A5B6C/Documents/Projects/Garden" \
    "$M/Documents/Current Project"

# unreadable-entry: a sidecar cut short by an interrupted copy (AppleDouble magic and
# version, then 12 of the 16 filler bytes).
stub "$M/Documents/Recipes.pdf" 4096 '%%PDF-1.4\n'
printf '\000\005\026\007\000\002\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > "$M/Documents/._Recipes.pdf"

# oversized-backed-up-file (error) and unexcluded-support-data: a downloaded Core ML model
# in Application Support, not excluded.
M_MODEL="$M/Library/Application Support/Models/Segmenter.mlmodelc"
stub "$M_MODEL/coremldata.bin" 512 'coreml\000'
stub "$M_MODEL/analytics/coremldata.bin" 256 'coreml\000'
text "$M_MODEL/metadata.json" <<'EOF'
[{"shortDescription":"Person segmentation","version":"3","modelType":{"name":"MLModelType_mlProgram"}}]
EOF
text "$M_MODEL/model.mil" <<'EOF'
program(1.0)
{
    func main<ios16>(tensor<fp16, [1, 3, 512, 512]> image) {
    } -> (mask);
}
EOF
zeros "$M_MODEL/weights/weight.bin" 10000000

# legacy-exclusion-attribute: offline maps marked the iOS 5.0.1 way only.
sqlite "$M/Library/Application Support/OfflineMaps/tiles-z12.mbtiles" 65536
mark --legacy "$M/Library/Application Support/OfflineMaps"

# unrecognised-exclusion-value: a build script wrote the attribute by hand as "true".
sqlite "$M/Library/Application Support/search-index.sqlite" 16384
mark --value other "$M/Library/Application Support/search-index.sqlite"

# orphan-sidecar: the index's first version was deleted by a migration, and its sidecar (the
# exclusion in it) left behind beside the new one.
sqlite "$M/Library/Application Support/search-index-v1.sqlite" 4096
mark "$M/Library/Application Support/search-index-v1.sqlite"
rm "$M/Library/Application Support/search-index-v1.sqlite"

# volatile-store: the offline feed database kept in Caches, where iOS may purge it.
sqlite "$M/Library/Caches/feed.sqlite" 8192

# split-store-backup: the store's main file is excluded, its write-ahead log is not: a restore
# brings back a WAL without its database.
sqlite "$M/Library/Application Support/Store.sqlite" 4096
zeros "$M/Library/Application Support/Store.sqlite-wal" 8192
mark "$M/Library/Application Support/Store.sqlite"

# large-user-defaults: a feed cached in UserDefaults: a 600,000-byte blob under one key makes
# an 800 kB preferences plist (zeros, base64 "AAAA…", so git keeps it in a few kB).
large_preferences "$M/Library/Preferences/com.example.misbehaving.feedcache.plist" cachedFeed 800000 \
    '\t<key>lastSync</key>\n\t<string>2026-11-01T08:00:00Z</string>\n'

# excluded-container-directory: Library/Caches itself marked (a container folder).
sqlite "$M/Library/Caches/com.example.misbehaving/Cache.db" 4096
stub "$M/Library/Caches/ImageCache/avatar-42.jpg" 1024 '\377\330\377\340'
mark "$M/Library/Caches"

preferences "$M/Library/Preferences/com.example.misbehaving.plist" <<'EOF'
	<key>autoplayTrailers</key>
	<true/>
	<key>downloadQuality</key>
	<string>1080p</string>
EOF

# redundant-exclusion: an upload queue in tmp marked anyway (plain-string value, xattr -w style).
text "$M/tmp/upload-queue/batch-0001.json" <<'EOF'
{"items":["Drafts/Untitled 3.md"],"attempt":1}
EOF
mark --value string "$M/tmp/upload-queue"

# The notification service extension's container: its own backup domain.
E="$CONTAINERS/Data/PluginKitPlugin/7C3E5B21-9A4D-4F60-8E1B-2D3C4B5A6F70"
container_metadata "$E" com.example.misbehaving.NotificationService 7C3E5B21-9A4D-4F60-8E1B-2D3C4B5A6F70
text "$E/Library/Application Support/delivered.log" <<'EOF'
2026-11-01T08:00:00Z delivered 4F1A
EOF

# The App Group container the app and its extension share, backed up from its root: a shared
# chat store at the root (no misplaced-at-root there), a shared UserDefaults suite of 700 kB
# (large-user-defaults warning), thumbnails in its Caches (not backed up).
G="$CONTAINERS/Shared/AppGroup/9B8A7C6D-5E4F-4A3B-2C1D-0E9F8A7B6C5D"
container_metadata "$G" group.com.example.misbehaving 9B8A7C6D-5E4F-4A3B-2C1D-0E9F8A7B6C5D 7
sqlite "$G/ChatStorage.sqlite" 131072
large_preferences "$G/Library/Preferences/group.com.example.misbehaving.plist" sharedTimeline 700000
stub "$G/Library/Caches/Thumbnails/chat-0001.jpg" 2048 '\377\330\377\340'

# --- Example.xcappdata: a device download with two warnings ---------------------------------
X="$OUT/Example.xcappdata"
text "$X/AppDataInfo.plist" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>CFBundleIdentifier</key>
	<string>com.example.journal</string>
	<key>DeviceName</key>
	<string>Example iPhone</string>
	<key>XCExecutableVersion</key>
	<string>2.3 (41)</string>
</dict>
</plist>
EOF
A="$X/AppData"
sqlite "$A/Documents/Journal.sqlite" 12288
text "$A/Documents/Entries/first-entry.md" <<'EOF'
First entry. The new notebook smells of cedar.
EOF
# recreatable-in-documents: thumbnails kept beside the entries.
stub "$A/Documents/Thumbnails/entry-0001.jpg" 1536 '\377\330\377\340'
stub "$A/Documents/Thumbnails/entry-0002.jpg" 1536 '\377\330\377\340'

# legacy-exclusion-attribute: sticker packs marked with com.apple.MobileBackup only.
text "$A/Library/Application Support/StickerPacks/classic/pack.json" <<'EOF'
{"name":"Classic","stickers":12}
EOF
mark --legacy "$A/Library/Application Support/StickerPacks"

# Downloaded fonts, excluded through an XML-plist value: recognised, no finding.
stub "$A/Library/Application Support/Fonts/Handwriting.ttf" 2048 '\000\001\000\000'
mark --value plist-other "$A/Library/Application Support/Fonts"

preferences "$A/Library/Preferences/com.example.journal.plist" <<'EOF'
	<key>dailyReminder</key>
	<true/>
	<key>reminderHour</key>
	<integer>21</integer>
EOF
sqlite "$A/Library/Caches/com.example.journal/Cache.db" 4096
text "$A/tmp/autosave.json" <<'EOF'
{"entry":"draft","words":0}
EOF

# The same package as a CI job receives it: an archive (the ._ sidecars travel as members).
# Sorted names, fixed times and owners, and gzip without a timestamp make it byte-stable.
rm -f "$OUT/Example.xcappdata.tar.gz"
(cd "$OUT" && "$GNUTAR" --sort=name --mtime='2026-11-01 00:00:00Z' --owner=0 --group=0 --numeric-owner -cf - Example.xcappdata | gzip -n -9 > Example.xcappdata.tar.gz)

echo "make-samples: wrote $OUT/WellBehaved, $OUT/MisbehavingDevice (and the link Misbehaving), $OUT/Example.xcappdata, $OUT/Example.xcappdata.tar.gz" >&2
