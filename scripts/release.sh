#!/usr/bin/env bash
# The release rehearsal, and the one step that ships (docs/distribution.md, *Publishing*):
#
#   scripts/release.sh VERSION --dry-run   the rehearsal: builds what this machine can build of
#                                          release VERSION and checks it as a user would get it
#   scripts/release.sh VERSION             the repository's owner, on the commit tagged vVERSION:
#                                          the same rehearsal, then `git push origin vVERSION`,
#                                          which starts .github/workflows/release.yml
#
# Everything it writes is under .build-rehearsal/ (ignored by git) or a temporary folder; no
# tracked file changes. In order:
#   1. .build-rehearsal/src: what a release is built from (the files of Package.swift, Sources,
#      Tests (the manifest names the test target), scripts, README.md, LICENSE, CHANGELOG.md,
#      Formula and Plugin that git tracks or does not ignore, as they are in the work tree, and
#      Package.resolved), with VERSION stamped into Project.swift (scripts/stamp-version.sh
#      VERSION). Only files whose bytes changed are rewritten, so a second rehearsal rebuilds
#      only what changed.
#   2. .build-rehearsal/dist: this machine's release tarball, built there by scripts/dist.sh, and
#      an artifact bundle of its binary (scripts/artifactbundle.sh), each with its .sha256.
#   3. .build-rehearsal/stamped: copies of the formula and the plugin package stamped with those
#      checksums (scripts/stamp-version.sh VERSION DIST, as release.yml's publish job stamps the
#      real ones); the platforms this machine does not build keep zeros.
#   4. The tarball served on 127.0.0.1 (python3 -m http.server, a free port, from a temporary
#      folder) and installed from there by scripts/install.sh into a temporary folder.
#   5. The checks: the installed binary's --version is VERSION and its scan of
#      sample-containers/WellBehaved exits 0; the tarball, the bundle and the plugin package hold
#      LICENSE (the same bytes); the stamped formula and plugin name VERSION's downloads and the
#      checksums of the files built; every .sha256 holds; CHANGELOG.md has an entry for VERSION
#      (dated, to publish).
# Each failed check is one line on standard error, `release: FAILED: …`; what led to it goes to
# standard output. Exit status: 0 every check passed (and, without --dry-run, the tag was
# pushed); 1 a check or a build failed; 2 usage, or publishing refused.
# Needs git, python3, tar, curl or wget, zip, and shasum or sha256sum.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
usage="usage: scripts/release.sh VERSION --dry-run | scripts/release.sh VERSION (the repository's owner, on the commit tagged vVERSION)"
die() { echo "release: $*" >&2; exit 2; }
say() { echo "release: $*"; }
failures=0
fail() { echo "release: FAILED: $*" >&2; failures=$((failures + 1)); }
stop() { fail "$*"; exit 1; }   # a failure after which nothing else can be checked

version= dry=
for arg in "$@"; do
    case "$arg" in
        --dry-run) dry=1 ;;
        -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
        -*) die "$usage" ;;
        *) [ -z "$version" ] || die "$usage"; version="${arg#v}" given="$arg" ;;
    esac
done
[ -n "$version" ] || die "$usage"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || die "not a version: $given (MAJOR.MINOR.PATCH)"
tag="v$version"

command -v git >/dev/null 2>&1 || die "git is needed: the rehearsal builds the files git tracks"
gitsays=$(git rev-parse --verify -q HEAD 2>&1) || die "git cannot read this checkout: $(echo "$gitsays" | head -1)"
if [ -z "$dry" ]; then
    # Publishing: only from the commit the owner tagged, with nothing uncommitted.
    tagged=$(git rev-parse -q --verify "refs/tags/$tag^{commit}" 2>/dev/null) || tagged=
    [ -n "$tagged" ] && [ "$tagged" = "$(git rev-parse HEAD)" ] \
        || die "publishing $version needs the tag $tag on this commit, made by the repository's owner (docs/distribution.md, Publishing); --dry-run rehearses without it"
fi
for tool in python3 tar; do command -v "$tool" >/dev/null 2>&1 || die "$tool is needed (Debian: apt-get install $tool)"; done
command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || die "curl or wget is needed (scripts/install.sh downloads with it)"
if command -v shasum >/dev/null 2>&1; then sha256() { shasum -a 256 "$@"; }
elif command -v sha256sum >/dev/null 2>&1; then sha256() { sha256sum "$@"; }
else die "shasum or sha256sum is needed"; fi

work="$root/.build-rehearsal"
src="$work/src" dist="$work/dist" stamped="$work/stamped"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-audit-release.XXXXXX")
server=
cleanup() { if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
started=$SECONDS

# 1. The sources, stamped with VERSION, copied where their bytes changed.
paths=(Package.swift Sources Tests scripts README.md LICENSE CHANGELOG.md Formula Plugin)
if [ -n "$(git status --porcelain -- "${paths[@]}")" ]; then
    # Publishing builds the tag alone; a rehearsal builds the work tree, and says so.
    [ -n "$dry" ] || die "uncommitted changes or untracked files in what a release is built from: the tag would not hold them (git stash -u, or --dry-run)"
    say "note: this rehearsal builds uncommitted changes or untracked files, which a tag would not hold"
fi
mkdir "$tmp/stage"
git ls-files -z --cached --others --exclude-standard -- "${paths[@]}" | tar --null -T - -cf "$tmp/stage.tar" \
    || stop "could not copy what git lists of ${paths[*]} (a tracked file deleted?)"
tar -xf "$tmp/stage.tar" -C "$tmp/stage" || stop "could not unpack the copy of the sources"
[ ! -f Package.resolved ] || cp Package.resolved "$tmp/stage/"
"$tmp/stage/scripts/stamp-version.sh" "$version" >/dev/null || stop "scripts/stamp-version.sh $version failed on the copy"
mkdir -p "$src"
(cd "$tmp/stage" && find . -type f) | LC_ALL=C sort > "$tmp/want"
(cd "$src" && for p in "${paths[@]}"; do [ ! -e "$p" ] || find "./$p" -type f; done) | LC_ALL=C sort > "$tmp/have"
LC_ALL=C comm -13 "$tmp/want" "$tmp/have" | while IFS= read -r f; do rm -f "$src/$f"; done
changed=0
while IFS= read -r f; do
    a="$tmp/stage/$f" b="$src/$f"
    if cmp -s "$a" "$b" && { [ -x "$a" ] && [ -x "$b" ] || { [ ! -x "$a" ] && [ ! -x "$b" ]; }; }; then continue; fi
    mkdir -p "$(dirname "$b")"
    rm -f "$b"
    cp "$a" "$b"
    changed=$((changed + 1))
done < "$tmp/want"
say "$version: .build-rehearsal/src holds the release's sources ($changed file(s) rewritten)"

# 2. This machine's tarball and an artifact bundle of its binary.
rm -rf "$src/dist" "$dist"
mkdir -p "$dist"
say "scripts/dist.sh in .build-rehearsal/src (a release build: minutes the first time; log in .build-rehearsal/dist.log)"
if ! (cd "$src" && scripts/dist.sh) > "$work/dist.log" 2>&1; then
    tail -n 20 "$work/dist.log"
    stop "scripts/dist.sh failed (.build-rehearsal/dist.log)"
fi
say "built in $((SECONDS - started)) s"
set -- "$src/dist/sandbox-audit-$version-"*.tar.gz
[ $# -eq 1 ] && [ -f "$1" ] || stop "scripts/dist.sh wrote no single sandbox-audit-$version-*.tar.gz"
name=$(basename "$1" .tar.gz)
platform=${name#"sandbox-audit-$version-"}
mv "$src/dist/$name.tar.gz" "$src/dist/$name.tar.gz.sha256" "$dist/"
mkdir "$tmp/unpacked"
tar -xzf "$dist/$name.tar.gz" -C "$tmp/unpacked" || stop "$name.tar.gz does not unpack"
if ! (cd "$src" && scripts/artifactbundle.sh -o "$dist" "$platform=$tmp/unpacked/$name/sandbox-audit") > "$tmp/bundle.log" 2>&1; then
    cat "$tmp/bundle.log"
    stop "scripts/artifactbundle.sh failed"
fi
bundle="$dist/sandbox-audit.artifactbundle.zip"

# 3. The formula and the plugin package, stamped in copies. What this machine does not build
#    keeps a checksum of zeros, as the unreleased formula has.
rm -rf "$stamped"
for f in scripts/stamp-version.sh Sources/SandboxAuditSystem/Support/Project.swift Formula/sandbox-audit.rb README.md; do
    mkdir -p "$stamped/$(dirname "$f")"
    cp "$src/$f" "$stamped/$f"
done
cp -R "$src/Plugin" "$stamped/Plugin"
mkdir "$stamped/sums"
cp "$dist/"*.sha256 "$stamped/sums/"
elsewhere=
for p in macos-universal linux-x86_64 linux-aarch64; do
    [ "$p" != "$platform" ] || continue
    printf '%064d  %s\n' 0 "sandbox-audit-$version-$p.tar.gz" > "$stamped/sums/sandbox-audit-$version-$p.tar.gz.sha256"
    elsewhere="$elsewhere $p"
done
(cd "$stamped" && scripts/stamp-version.sh "$version" sums) > "$tmp/stamp.log" 2>&1 \
    || { cat "$tmp/stamp.log"; stop "scripts/stamp-version.sh $version DIST failed on the copies"; }

# 4. Installed as a user would: scripts/install.sh from a local server.
mkdir -p "$tmp/www/$tag"
cp "$dist/$name.tar.gz" "$dist/$name.tar.gz.sha256" "$tmp/www/$tag/"
python3 -u -m http.server --bind 127.0.0.1 --directory "$tmp/www" 0 > "$tmp/server.log" 2>&1 &
server=$!
port=
for _ in $(seq 1 100); do   # "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
    port=$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$tmp/server.log" | head -n 1)
    [ -z "$port" ] && kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || stop "python3 -m http.server did not start: $(head -n 1 "$tmp/server.log")"
if SANDBOX_AUDIT_DOWNLOAD_URL="http://127.0.0.1:$port" "$src/scripts/install.sh" "$version" "$tmp/bin" > "$tmp/install.log" 2>&1; then
    bin="$tmp/bin/sandbox-audit"
    printed=$("$bin" --version 2>&1) || printed="$printed (exit $?)"
    [ "$printed" = "$version" ] || fail "the installed sandbox-audit --version printed '$printed', not $version"
    status=0
    "$bin" scan "$root/sample-containers/WellBehaved" > "$tmp/scan.log" 2>&1 || status=$?
    [ "$status" = 0 ] || fail "the installed sandbox-audit's scan of sample-containers/WellBehaved exited $status, not 0: $(tail -n 1 "$tmp/scan.log")"
else
    fail "scripts/install.sh $version from http://127.0.0.1:$port failed: $(tail -n 1 "$tmp/install.log")"
fi

# 5. The licence in every artifact, the checksums where the formula and the plugin name them.
cmp -s "$tmp/unpacked/$name/LICENSE" "$root/LICENSE" || fail "$name.tar.gz holds no $name/LICENSE, or another one"
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("sandbox-audit.artifactbundle/LICENSE"))' \
    "$bundle" > "$tmp/bundle-LICENSE" 2>/dev/null || true
cmp -s "$tmp/bundle-LICENSE" "$root/LICENSE" || fail "sandbox-audit.artifactbundle.zip holds no sandbox-audit.artifactbundle/LICENSE, or another one"
cmp -s "$stamped/Plugin/LICENSE" "$root/LICENSE" || fail "the plugin package (Plugin/) holds no LICENSE, or another one"
formula="$stamped/Formula/sandbox-audit.rb" plugin="$stamped/Plugin/Package.swift"
sum=$(sha256 "$dist/$name.tar.gz" | cut -d' ' -f1)
grep -F "sha256 \"$sum\" # $platform" "$formula" >/dev/null || fail "the stamped formula's sha256 for $platform is not $name.tar.gz's ($sum)"
grep -F "/releases/download/$tag/$name.tar.gz\"" "$formula" >/dev/null || fail "the stamped formula names no $tag/$name.tar.gz"
grep -F "  version \"$version\"" "$formula" >/dev/null || fail "the stamped formula's version is not $version"
grep -F '  license "MIT"' "$formula" >/dev/null || fail "the formula states no license \"MIT\""
zipsum=$(sha256 "$bundle" | cut -d' ' -f1)
grep -F "checksum: \"$zipsum\"" "$plugin" >/dev/null || fail "the stamped plugin package's checksum is not sandbox-audit.artifactbundle.zip's ($zipsum)"
grep -F "/releases/download/$tag/sandbox-audit.artifactbundle.zip\"" "$plugin" >/dev/null || fail "the stamped plugin package names no $tag/sandbox-audit.artifactbundle.zip"
(cd "$dist" && sha256 -c ./*.sha256) > "$tmp/sums.log" 2>&1 || fail "a .sha256 in .build-rehearsal/dist does not hold: $(grep -v ': OK$' "$tmp/sums.log" | head -n 1)"
entry=$(grep -E "^## \[?$(printf '%s' "$version" | sed 's/[.+]/\\&/g')\]?( |$)" "$src/CHANGELOG.md" 2>/dev/null | head -n 1) || entry=
if [ -z "$entry" ]; then
    fail "CHANGELOG.md has no entry for $version (a heading '## [$version] - DATE')"
elif [ -z "$dry" ] && ! [[ "$entry" =~ [0-9]{4}-[0-9]{2}-[0-9]{2} ]]; then
    fail "CHANGELOG.md's entry for $version is not dated: $entry"
fi

[ "$failures" = 0 ] || exit 1
say "passed: $name.tar.gz and sandbox-audit.artifactbundle.zip ($platform) installed and checked, the formula and the plugin package stamped with their checksums (.build-rehearsal/dist, .build-rehearsal/stamped), in $((SECONDS - started)) s"
say "not built here (their formula lines keep zeros):$elsewhere"
[ -z "$dry" ] || exit 0
say "pushing $tag: .github/workflows/release.yml builds every platform and publishes"
git push origin "refs/tags/$tag"
