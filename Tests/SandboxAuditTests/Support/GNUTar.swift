import Foundation

/// GNU tar, on Linux, where the archive tests make their GNU-format archives with it
/// (`--xattrs-include`, `--sparse`). nil elsewhere (macOS's tar is bsdtar, and Homebrew's gtar
/// reads no Darwin attributes): those tests then make the same archives with bsdtar's `--xattrs`.
enum GNUTar {
    static let command: String? = {
        #if os(Linux)
            if Tool.find("tar") != nil, let r = try? shell("tar --version | grep '^tar (GNU tar)' >/dev/null", in: "/"),
                r.status == 0
            {
                return "tar"
            }
        #endif
        return nil
    }()
}
