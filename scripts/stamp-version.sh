#!/usr/bin/env bash
# The release workflow's stamp: makes VERSION (a tag without its `v`) the version everywhere it
# is written, before the build.
#
#   scripts/stamp-version.sh VERSION        Project.version in Sources/SandboxAuditSystem/Support/Project.swift
#                                           (what --version prints and the reports name)
#   scripts/stamp-version.sh VERSION DIST   the same, and Formula/sandbox-audit.rb (its version,
#                                           urls and each platform's sha256, read from
#                                           DIST/*.tar.gz.sha256), Plugin/Package.swift's binaryTarget
#                                           (url and checksum, from DIST/sandbox-audit.artifactbundle.zip.sha256)
#                                           and the install lines of the README and docs/ci.md
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "stamp-version: $*" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/stamp-version.sh VERSION [DIST]"
version="${1#v}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || die "not a version: $1"

project=Sources/SandboxAuditSystem/Support/Project.swift
sed -i.bak "s/^\( *package static let version = \)\"[^\"]*\"/\1\"$version\"/" "$project" && rm -f "$project.bak"
grep "package static let version = \"$version\"" "$project" >/dev/null || die "could not stamp $project"
echo "stamp-version: $project says $version"

[ $# -eq 2 ] || exit 0
dist="$2" formula=Formula/sandbox-audit.rb
sed -i.bak -e "s/^\(  version \)\"[^\"]*\"/\1\"$version\"/" \
    -e "s#/download/v[^/]*/sandbox-audit-[^/]*-\(macos-universal\|linux-x86_64\|linux-aarch64\)\.tar\.gz#/download/v$version/sandbox-audit-$version-\1.tar.gz#" "$formula"
for platform in macos-universal linux-x86_64 linux-aarch64; do
    sums="$dist/sandbox-audit-$version-$platform.tar.gz.sha256"
    [ -f "$sums" ] || die "missing $sums"
    sum=$(cut -d' ' -f1 < "$sums")
    [[ "$sum" =~ ^[0-9a-f]{64}$ ]] || die "$sums holds no SHA-256"
    # The line after each platform's url, which names it: sha256 "..." # PLATFORM
    sed -i.bak "s/^\( *sha256 \)\"[0-9a-f]*\"\( # $platform\)$/\1\"$sum\"\2/" "$formula"
    grep "sha256 \"$sum\" # $platform" "$formula" >/dev/null || die "could not stamp $platform in $formula"
done
rm -f "$formula.bak"
echo "stamp-version: $formula says $version, with the sha256 of each release tarball"
# The plugin package's binaryTarget: the release's artifact bundle and its checksum
# (scripts/artifactbundle.sh wrote DIST/sandbox-audit.artifactbundle.zip.sha256).
plugin=Plugin/Package.swift sums="$dist/sandbox-audit.artifactbundle.zip.sha256"
[ -f "$sums" ] || die "missing $sums (scripts/artifactbundle.sh --dist $dist)"
sum=$(cut -d' ' -f1 < "$sums")
[[ "$sum" =~ ^[0-9a-f]{64}$ ]] || die "$sums holds no SHA-256"
sed -i.bak -e "s#/download/v[^/]*/sandbox-audit\.artifactbundle\.zip\"#/download/v$version/sandbox-audit.artifactbundle.zip\"#" \
    -e "s/^\( *checksum: \)\"[0-9a-f]*\"/\1\"$sum\"/" "$plugin"
rm -f "$plugin.bak"
grep "download/v$version/sandbox-audit.artifactbundle.zip\"" "$plugin" >/dev/null && grep "checksum: \"$sum\"" "$plugin" >/dev/null \
    || die "could not stamp $plugin"
echo "stamp-version: $plugin names the $version artifact bundle and its checksum"
# The install lines and Action references of the README and of docs/ci.md (its CI recipes) name
# the release too (a copy holding the README alone, as a test makes, stamps the README).
v='[0-9][0-9A-Za-z.+]*'
for doc in README.md docs/ci.md; do
    [ "$doc" = README.md ] || [ -f "$doc" ] || continue
    sed -i.bak -E -e "s#(sandbox-audit/sandbox-audit/)v$v(/scripts/install\.sh \| sh -s -- )$v#\1v$version\2$version#g" \
        -e "s#(sandbox-audit/sandbox-audit@v)$v#\1$version#g" \
        -e "s#sandbox-audit-$v(-linux-x86_64|-linux-aarch64|-macos-universal)#sandbox-audit-$version\1#g" "$doc"
    rm -f "$doc.bak"
done
# A release exists now: the Install section's "no release yet" paragraph goes (up to its marker
# and the blank line after it).
sed -i.bak -e '/^\*\*There is no release yet\.\*\*/,/^<!-- no-release-yet/d' README.md
sed -i.bak -e '/^## Install$/{n;/^$/{N;/^\n$/s/^\n//;};}' README.md
rm -f README.md.bak
echo "stamp-version: README.md names $version"
