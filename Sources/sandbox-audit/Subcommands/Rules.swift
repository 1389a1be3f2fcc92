import ArgumentParser
import SandboxAudit

struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the rules (id, default severity, summary), or show one in full with its examples.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, markdown }

    @Argument(help: "A rule id.")
    var id: String?

    @Option(help: "text, or markdown (the catalogue in docs/rules.md).")
    var format: Format = .text

    func run() throws {
        if let id {
            guard let rule = RuleCatalogue.rule(id: id) else {
                let near = Suggestions.didYouMean(Suggestions.near(id, in: RuleCatalogue.all.map(\.id)))
                throw InputError(
                    "no rule '\(id)'; " + (near.map { $0 + " " } ?? "") + "'sandbox-audit rules' lists them")
            }
            emit(RulesCatalogueReport.detail(rule))
            return
        }
        emit(format == .markdown ? RulesCatalogueReport.markdown() : RulesCatalogueReport.list())
    }
}
