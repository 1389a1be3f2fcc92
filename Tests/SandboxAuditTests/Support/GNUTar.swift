import Foundation

/// GNU tar, where there is one: `tar` on Linux, Homebrew's `gtar` on macOS (whose own `tar` is
/// bsdtar and knows neither `--xattrs-include` nor `--sparse`). nil where there is none: the
/// archive tests then make their archives with bsdtar's `--xattrs` alone.
enum GNUTar {
    static let command: String? = {
        for name in ["tar", "gtar"] where Tool.find(name) != nil {
            if let r = try? shell("\(name) --version | grep '^tar (GNU tar)' >/dev/null", in: "/"), r.status == 0 { return name }
        }
        return nil
    }()
}
