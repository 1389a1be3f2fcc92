import Foundation

/// One folder per project, each with its plan.
struct ProjectStore {
    func planURL(project name: String) -> URL {
        Paths.documents.appending(path: "Projects/\(name)/plan.md")
    }

    func exportRecipes(_ pdf: Data) throws {
        try pdf.write(to: URL.documentsDirectory.appending(path: "Recipes.pdf"))
    }
}
