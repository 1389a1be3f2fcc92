# Homebrew formula: the release binary for this Mac (arm64 and x86_64 in one) or Linux machine,
# or, with --HEAD, a build from source with Swift 6.1 or later (Xcode 16.3 on macOS).
#   brew tap sandbox-audit/sandbox-audit https://github.com/sandbox-audit/sandbox-audit
#   brew install sandbox-audit           # the release binary
#   brew install --HEAD sandbox-audit    # the default branch, built from source
# The release workflow stamps version, urls and sha256s (scripts/stamp-version.sh VERSION DIST);
# DistributionTests checks the version and the repository against Support/Project.swift.
class SandboxAudit < Formula
  desc "Audit iOS app data containers against Apple's backup and storage rules"
  homepage "https://github.com/sandbox-audit/sandbox-audit"
  version "0.1.0"
  license "MIT"

  on_macos do
    url "https://github.com/sandbox-audit/sandbox-audit/releases/download/v0.1.0/sandbox-audit-0.1.0-macos-universal.tar.gz"
    sha256 "0000000000000000000000000000000000000000000000000000000000000000" # macos-universal
  end
  on_linux do
    on_intel do
      url "https://github.com/sandbox-audit/sandbox-audit/releases/download/v0.1.0/sandbox-audit-0.1.0-linux-x86_64.tar.gz"
      sha256 "0000000000000000000000000000000000000000000000000000000000000000" # linux-x86_64
    end
    on_arm do
      url "https://github.com/sandbox-audit/sandbox-audit/releases/download/v0.1.0/sandbox-audit-0.1.0-linux-aarch64.tar.gz"
      sha256 "0000000000000000000000000000000000000000000000000000000000000000" # linux-aarch64
    end
  end

  head do
    url "https://github.com/sandbox-audit/sandbox-audit.git", branch: "main"
    depends_on "pkgconf" => :build
    depends_on "libarchive" # keg-only: its lib/pkgconfig is put on PKG_CONFIG_PATH below
    on_macos do
      depends_on xcode: ["16.3", :build] # swift-tools-version 6.1
    end
    on_linux do
      depends_on "swift" => :build
      depends_on "attr"
      depends_on "sqlite"
    end
  end

  # The release binary links macOS's own libarchive and SQLite; on Linux the system's libattr,
  # libarchive and SQLite (Debian/Ubuntu: scripts/runtime-packages.txt, see caveats).
  on_macos do
    depends_on macos: :ventura # the package's platforms: .macOS(.v13)
  end

  def install
    if build.head?
      ENV.prepend_path "PKG_CONFIG_PATH", Formula["libarchive"].opt_lib/"pkgconfig"
      system "swift", "build", "--disable-sandbox", "-c", "release", "--product", "sandbox-audit"
      bin.install ".build/release/sandbox-audit"
    else
      bin.install "sandbox-audit"
    end
  end

  def caveats
    return if OS.mac? || version.head?

    <<~EOS
      The Linux binary uses the system's libattr, libarchive and SQLite. Debian/Ubuntu:
        sudo apt-get install -y libc6 libgcc-s1 libstdc++6 libattr1 libarchive13 libsqlite3-0
    EOS
  end

  test do
    if version.head?
      assert_match(/\A\d+\.\d+\.\d+/, shell_output("#{bin}/sandbox-audit --version"))
    else
      assert_equal version.to_s, shell_output("#{bin}/sandbox-audit --version").strip
    end
    (testpath/"App/Documents").mkpath
    (testpath/"App/Library/Caches").mkpath
    (testpath/"App/Documents/notes.txt").write "hello"
    output = shell_output("#{bin}/sandbox-audit scan --format json #{testpath}/App")
    assert_match "\"backupFootprint\"", output
  end
end
