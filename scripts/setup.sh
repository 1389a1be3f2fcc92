#!/usr/bin/env bash
# The README's quick start, on a fresh clone (Debian/Ubuntu with Swift, or macOS with Homebrew):
#
#   scripts/setup.sh          installs what the build needs when it is missing, builds, and scans
#                             sample-containers/Misbehaving (its findings make the scan exit 1;
#                             this script then says so and ends 0)
#   scripts/setup.sh test     installs what the tests need when it is missing, and runs them
#   scripts/setup.sh deps     only installs what the build needs (scripts/dist.sh uses it)
#
# It says what it installs and asks nothing (apt-get -y; sudo when not root). What is already
# there is not installed again, so a second run only rebuilds. Debian/Ubuntu packages:
#   build: libattr1-dev libarchive-dev libsqlite3-dev pkg-config
#   test:  libarchive-tools (bsdtar) zip xz-utils python3-jsonschema util-linux (setpriv, script,
#          prlimit) time (GNU time: the cost tests measure peak memory with it), ncdu (reads the
#          ncdu export back),
#          check-jsonschema from PyPI (the workflow schema test, which skips without it),
#          ziglang from PyPI (scripts/darwin-check.sh: the macOS compile check, run on Linux
#          before the suite; skipped, saying so, when it cannot be installed),
#          and chromium when the distribution has it (the HTML report test, which skips without
#          it; SANDBOX_AUDIT_NO_BROWSER=1 leaves it out)
# macOS: brew install libarchive (keg-only: SwiftPM finds it through Package.swift's .brew
# provider, and PKG_CONFIG_PATH is set to it for anything else; docs/distribution.md), and for the
# tests xz, ncdu, Python's jsonschema and check-jsonschema.
# Before the suite, `test` runs scripts/check-portable-tests.sh (test code a macOS runner would
# fail for its environment), scripts/check-format.sh (swift format lint and the size limits), on Linux scripts/darwin-check.sh, and scripts/check-warnings.sh (the
# build of the package and its tests, failing on a compiler warning in Sources/ or Tests/).
# Swift 6.1 or later (Xcode 16.3 on macOS) is not installed: https://www.swift.org/install/
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-build}"
case "$mode" in
    build|test|deps) ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "usage: scripts/setup.sh [build|test|deps]" >&2; exit 2 ;;
esac

say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 2; }

command -v swift >/dev/null 2>&1 || die "swift is not installed: see https://www.swift.org/install/ (Linux) or install Xcode (macOS)"

# --- Linux: apt-get ----------------------------------------------------------------------------
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "not root and no sudo: install as root: $*"
    fi
}

apt_install() {   # apt_install PKG...: installs those that are not installed yet
    local missing=() p
    for p in "$@"; do
        dpkg -s "$p" 2>/dev/null | grep '^Status: install ok installed' >/dev/null || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    say "installing with apt-get: ${missing[*]}"
    local apt=(env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends)
    # A fresh machine has no package lists yet: update first then, or when the install fails.
    if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then as_root apt-get update -q; fi
    as_root "${apt[@]}" "${missing[@]}" || { as_root apt-get update -q && as_root "${apt[@]}" "${missing[@]}"; }
}

# grep without -q here and above: under pipefail, grep -q quitting at the first match can kill
# the command before it with SIGPIPE and turn a match into a failure.
apt_has_candidate() { apt-cache policy "$1" 2>/dev/null | grep 'Candidate: [0-9]' >/dev/null; }

# --- macOS: Homebrew ---------------------------------------------------------------------------
brew_install() {  # brew_install FORMULA...
    command -v brew >/dev/null 2>&1 || die "Homebrew is not installed: see https://brew.sh (needed for: $*)"
    local missing=() f
    for f in "$@"; do brew list --versions "$f" >/dev/null 2>&1 || missing+=("$f"); done
    [ "${#missing[@]}" -eq 0 ] && return 0
    say "installing with Homebrew: ${missing[*]}"
    HOMEBREW_NO_AUTO_UPDATE=1 HOMEBREW_NO_INSTALL_CLEANUP=1 brew install "${missing[@]}"
}

python_jsonschema() {
    python3 -c 'import jsonschema' 2>/dev/null && return 0
    say "installing Python's jsonschema with pip (--user)"
    python3 -m pip install --quiet --user jsonschema 2>/dev/null \
        || python3 -m pip install --quiet --user --break-system-packages jsonschema \
        || say "could not install jsonschema: the SARIF schema test will skip"
}

# Optional: DistributionTests validate the workflows and action.yml against GitHub's schemas
# with check-jsonschema (PyPI; its schemas are vendored, so it works offline), and skip without it.
check_jsonschema() {
    command -v check-jsonschema >/dev/null 2>&1 && return 0
    say "installing check-jsonschema with pip (--user)"
    python3 -m pip install --quiet --user check-jsonschema 2>/dev/null \
        || python3 -m pip install --quiet --user --break-system-packages check-jsonschema 2>/dev/null \
        || { say "could not install check-jsonschema: the workflow schema test will skip"; return 0; }
    local bin
    bin="$(python3 -m site --user-base)/bin"
    case ":$PATH:" in *":$bin:"*) ;; *) export PATH="$PATH:$bin" ;; esac
}

# Optional, Linux: scripts/darwin-check.sh compiles the C layer and every Darwin call for macOS
# with zig (PyPI's ziglang bundles the macOS libc headers), and says it skipped without it.
ziglang() {
    command -v zig >/dev/null 2>&1 && return 0
    python3 -c 'import ziglang' 2>/dev/null && return 0
    say "installing ziglang with pip (--user), for scripts/darwin-check.sh"
    python3 -m pip install --quiet --user ziglang 2>/dev/null \
        || python3 -m pip install --quiet --user --break-system-packages ziglang 2>/dev/null \
        || say "could not install ziglang: the macOS compile check will be skipped"
}

os="$(uname -s)"
if [ "$os" = Darwin ]; then
    brew_install libarchive
    # Keg-only: not on pkg-config's default path. SwiftPM adds $(brew --prefix)/opt/libarchive/lib/pkgconfig
    # itself (the .brew provider); this is for a pkg-config run outside SwiftPM.
    export PKG_CONFIG_PATH="$(brew --prefix libarchive)/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    say "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
    if [ "$mode" = test ]; then
        # bsdtar and zip come with macOS.
        command -v xz >/dev/null 2>&1 || brew_install xz
        command -v ncdu >/dev/null 2>&1 || brew_install ncdu
        python_jsonschema
        check_jsonschema
    fi
elif command -v dpkg >/dev/null 2>&1; then
    apt_install libattr1-dev libarchive-dev libsqlite3-dev pkg-config
    if [ "$mode" = test ]; then
        apt_install libarchive-tools zip xz-utils python3 util-linux time ncdu
        python3 -c 'import jsonschema' 2>/dev/null || apt_install python3-jsonschema
        check_jsonschema
        ziglang
        # Optional: the HTML report test runs headless Chromium, and skips without it. Debian has
        # a chromium package; Ubuntu's is a snap wrapper that does not work in containers.
        if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
            && [ "${SANDBOX_AUDIT_NO_BROWSER:-}" != 1 ] && ! grep -qi ubuntu /etc/os-release 2>/dev/null; then
            if apt_has_candidate chromium || { as_root apt-get update -q >/dev/null && apt_has_candidate chromium; }; then
                apt_install chromium || say "chromium could not be installed: the HTML report test will skip"
            fi
        fi
    fi
else
    say "neither Homebrew nor apt-get: install libattr and libarchive (with headers and .pc files) yourself"
fi

[ "$mode" = deps ] && exit 0
if [ "$mode" = test ]; then
    say "scripts/check-portable-tests.sh"
    scripts/check-portable-tests.sh
    # check WHAT SCRIPT: runs a check that exits 3 when it cannot run here (it says why).
    check() {
        local what="$1" script="$2" rc=0
        "$script" || rc=$?
        case "$rc" in
            0) ;;
            3) say "the $what was skipped (above: why)" ;;
            *) die "the $what failed ($script)" ;;
        esac
    }
    say "scripts/check-format.sh (swift format lint, lines ≤ 120 bytes, files ≤ 400 lines;"
    say "  swift format format -i -r --configuration .swift-format Sources Tests Plugin Package.swift fixes most)"
    check "format check" scripts/check-format.sh
    if [ "$os" != Darwin ]; then
        say "scripts/darwin-check.sh (the C layer and every Darwin call, compiled for macOS 13, arm64 and x86_64)"
        check "macOS compile check" scripts/darwin-check.sh
    fi
    say "scripts/check-warnings.sh (swift build --build-tests: no compiler warning in Sources/ or Tests/)"
    scripts/check-warnings.sh
    say "swift test --disable-swift-testing"
    exec swift test --disable-swift-testing
fi

say "swift build --product sandbox-audit"
swift build --product sandbox-audit
bin="$(swift build --show-bin-path)/sandbox-audit"
say "$bin scan sample-containers/Misbehaving --sources sample-containers/MisbehavingApp"
echo
status=0
"$bin" scan sample-containers/Misbehaving --sources sample-containers/MisbehavingApp || status=$?
echo
case "$status" in
    0) say "scan exit 0: no finding at the error level" ;;
    1) say "scan exit 1: findings at the error level, as this sample is made to have (a scan exits 1 when a finding reaches --fail-on); the build works" ;;
    *) die "scan exit $status: a usage or input error" ;;
esac
say "done: $bin is built; run 'scripts/setup.sh test' for the tests"
