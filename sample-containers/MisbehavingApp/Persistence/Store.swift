import CoreData

/// The app's Core Data stack: its store goes where NSPersistentContainer puts it by default.
final class Store {
    static let shared = Store()

    let container: NSPersistentContainer

    private init() {
        container = NSPersistentContainer(name: "Store")
        container.loadPersistentStores { _, error in
            if let error { fatalError("\(error)") }
        }
    }
}
