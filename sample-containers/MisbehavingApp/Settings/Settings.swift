import Foundation

/// The user's settings: UserDefaults.standard, whose file the system writes.
enum Settings {
    static var launchCount: Int {
        get { UserDefaults.standard.integer(forKey: "launchCount") }
        set { UserDefaults.standard.set(newValue, forKey: "launchCount") }
    }
}
