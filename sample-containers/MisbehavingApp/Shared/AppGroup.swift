/// The App Group the app shares with its extensions.
enum AppGroup {
    static let id = "group.com.example.misbehaving"
}
