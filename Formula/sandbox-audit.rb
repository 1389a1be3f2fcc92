# Homebrew formula: builds sandbox-audit from source with the Swift toolchain (Xcode's on macOS).
#   brew tap OWNER/sandbox-audit https://github.com/OWNER/sandbox-audit
#   brew install --HEAD sandbox-audit
# Replace OWNER, and url/sha256 with a release tag's source tarball when one is published.
class SandboxAudit < Formula
  desc "Audit iOS app data containers against Apple's backup and storage rules"
  homepage "https://github.com/OWNER/sandbox-audit"
  url "https://github.com/OWNER/sandbox-audit/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  head "https://github.com/OWNER/sandbox-audit.git", branch: "main"

  depends_on xcode: ["15.3", :build] # swift-tools-version 5.10
  depends_on "libarchive"            # keg-only: superenv puts its lib/pkgconfig on PKG_CONFIG_PATH
  depends_on :macos => :ventura      # the package's platforms: .macOS(.v13)

  def install
    ENV.prepend_path "PKG_CONFIG_PATH", Formula["libarchive"].opt_lib/"pkgconfig"
    system "swift", "build", "--disable-sandbox", "-c", "release", "--product", "sandbox-audit"
    bin.install ".build/release/sandbox-audit"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/sandbox-audit --version")
    mkdir_p testpath/"App/Documents"
    mkdir_p testpath/"App/Library/Caches"
    (testpath/"App/Documents/notes.txt").write "hello"
    output = shell_output("#{bin}/sandbox-audit scan #{testpath}/App")
    assert_match "Documents", output
  end
end
