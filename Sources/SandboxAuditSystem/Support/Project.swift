/// The project's version and repository: the one place either is written. `--version`, the
/// reports' tool version and every link to the documentation (Rules/References.swift) derive
/// from them. The release workflow (.github/workflows/release.yml) stamps `version` from the
/// `v*` tag with scripts/stamp-version.sh; scripts/dist.sh, scripts/install.sh's default
/// download URL, action.yml and the Homebrew formula read or are checked against these lines
/// (DistributionTests), so keep each on one line as written.
package enum Project {
    /// The release version, without the tag's `v`.
    package static let version = "0.1.0"
    /// The canonical GitHub repository, `owner/name`. A fork changes it here.
    package static let repository = "sandbox-audit/sandbox-audit"
    /// The repository's web address.
    package static var repositoryURL: String { "https://github.com/" + repository }
}
