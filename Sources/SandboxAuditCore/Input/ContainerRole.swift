import SandboxAuditSystem

/// Which of an app's containers a folder is. Each is its own backup domain.
public enum ContainerRole: String, CaseIterable, Sendable {
    /// The app's data container: backup domain `AppDomain-BUNDLE_ID`.
    case app
    /// An app extension's data container: `AppDomainPlugin-EXTENSION_ID`.
    case `extension`
    /// An App Group container shared by the app and its extensions: `AppDomainGroup-GROUP_ID`.
    case group

    /// The backup domain's prefix, as a device backup's `Manifest.db` names it.
    package var domainPrefix: String {
        switch self {
        case .app: return "AppDomain-"
        case .extension: return "AppDomainPlugin-"
        case .group: return "AppDomainGroup-"
        }
    }

    /// The backup domain of the container with this identifier.
    package func domain(_ identifier: String?) -> String { domainPrefix + (identifier ?? "unidentified") }
}
