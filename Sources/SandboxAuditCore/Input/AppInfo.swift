import Foundation
import SandboxAuditSystem

/// What the app's own `Info.plist` says that its containers cannot: that it is an App Clip
/// (`NSAppClip`), which iOS never backs up, and that its `Documents` folder shows in the Files
/// app (`UIFileSharingEnabled`, `LSSupportsOpeningDocumentsInPlace`; Apple, Information Property
/// List: https://developer.apple.com/documentation/bundleresources/information-property-list).
/// Read from `--app-info PATH` (an `Info.plist` or an `.app` folder) or, on a Simulator device,
/// from the app's bundle (`data/Containers/Bundle/Application/UUID/NAME.app/Info.plist`, the
/// bundle container found by its container-manager metadata, as the data containers are).
/// Binary or XML, through `BoundedPlist`, at most `maximumSize` bytes.
package struct AppInfo: Sendable {
    /// The `Info.plist` read.
    package let source: String
    package let bundleIdentifier: String?
    /// `NSAppClip` is present.
    package let isAppClip: Bool
    /// `NSExtension` is present: an app extension's Info.plist.
    package let isExtension: Bool
    /// The keys, set to true, that make `Documents` user-visible, in `documentsKeys` order.
    package let documentsVisibleKeys: [String]

    static let maximumSize = 1 << 20
    static let documentsKeys = ["UIFileSharingEnabled", "LSSupportsOpeningDocumentsInPlace"]

    init(_ plist: [String: Any], source: String) {
        self.source = source
        bundleIdentifier = plist["CFBundleIdentifier"] as? String
        isAppClip = plist["NSAppClip"] != nil
        isExtension = plist["NSExtension"] != nil
        documentsVisibleKeys = Self.documentsKeys.filter {
            (plist[$0] as? Bool) == true || (plist[$0] as? NSNumber)?.boolValue == true
        }
    }

    /// `--app-info PATH`: an `Info.plist`, or an `.app` folder holding one. Throws `InputError`
    /// saying what and where when it cannot be read or is not a property list dictionary.
    package static func read(_ path: String) throws -> AppInfo {
        var file = path
        if case .success(let st) = Result(catching: { () throws(Errno) in
            try FileDescriptor.currentDirectory.status(following: path.utf8)
        }),
            st.kind == .directory
        {
            file = (path.hasSuffix("/") ? path : path + "/") + "Info.plist"
        }
        let bytes: [UInt8]
        do {
            bytes = try BoundedRead.file(Array(file.utf8), limit: maximumSize, followSymlink: true)
        } catch let e as BoundedRead.Failure {
            throw InputError("cannot read the app's Info.plist \(file): \(e)")
        }
        switch BoundedPlist.decode(bytes, maximumSize: maximumSize) {
        case .failure(let refusal):
            throw InputError("\(file) is not the app's Info.plist: not a property list (\(refusal.reason))")
        case .success(let parsed):
            guard let plist = parsed.object as? [String: Any] else {
                throw InputError("\(file) is not the app's Info.plist: not a dictionary")
            }
            return AppInfo(plist, source: file)
        }
    }

    /// The app's bundle on the Simulator device whose `Containers` folder is `containers`: the
    /// `Bundle/Application/UUID` container whose metadata names `app`, its one `*.app` folder's
    /// `Info.plist`, each folder opened from the one above it without following a symlink. Nil
    /// when the device holds no such bundle or it cannot be read.
    package static func inBundle(containers: ContainersFolder, app: String) -> AppInfo? {
        guard
            let bundle = (try? AppContainers.list(containers, "Bundle/Application"))?.first(where: {
                $0.identifier == app
            }),
            let folder = try? bundle.listing.open(bundle.path),
            let found = try? SimulatorDevices.folders(
                of: folder, path: bundle.path,
                { name, app, _ in
                    name.hasSuffix(".app") ? (name, Container.readPlist("Info.plist", in: app)) : nil
                }),
            let (name, plist) = found.values.first
        else { return nil }
        return plist.map { AppInfo($0, source: bundle.path + "/" + name + "/Info.plist") }
    }
}
