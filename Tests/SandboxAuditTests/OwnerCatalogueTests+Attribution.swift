import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

extension OwnerCatalogueTests {
    func testEveryExampleIsAttributedToItsEntryInTheLibraryInventoryAndReport() throws {
        XCTAssertGreaterThanOrEqual(Set(pathExamples.map(\.entry)).count, 80, "issue 39 asks for 80 entries at least")
        let dir = try TempDir()
        let root = try makeContainer(dir)

        // The library: each example is its own entry's, and matching one path agrees with the pass.
        let inventory = try Audit.inventory(of: root)
        let map = OwnerMap([inventory], rules: [])
        let index = Dictionary(uniqueKeysWithValues: inventory.entries.enumerated().map { ($1.path.display, $0) })
        for (p, i) in pathExamples {
            let want = catalogue[i]
            guard let at = index[p] else {
                XCTFail("\(p) not in the inventory")
                continue
            }
            for got in [map.attribution(container: 0, entry: at), map.attribution(of: ContainerPath(p))] {
                XCTAssertEqual(got?.entry?.holds, want.holds, p)
                XCTAssertEqual(got?.entry?.source.description, want.source.description, p)
            }
            let legacy = want.legacy.contains { m in
                m.glob.map { (try? Glob($0))?.covers(ContainerPath(p)) == true } ?? false
            }
            if case .catalogue(_, let l)? = map.attribution(of: ContainerPath(p)) { XCTAssertEqual(l, legacy, p) }
        }
        // A large container is matched in runs on every core (each run starting with no folder
        // known): every cut gives what one pass gives.
        let whole = map.matcher.codes(inventory, chunks: 1)
        for chunks in [2, 3, 7, inventory.entries.count] {
            XCTAssertEqual(map.matcher.codes(inventory, chunks: chunks), whole, "\(chunks) runs")
        }
        // A finding located by the audit reaches its entry's owner without a search; one about a
        // path the inventory does not list is matched afresh; one about no path has no owner.
        for p in inventory.entries.map(\.path) + pathExamples.map({ ContainerPath($0.path + "-absent") }) {
            let f = Finding(ruleId: "r", severity: .note, path: p, message: "")
                .located(domain: inventory.domain, container: 0, in: inventory)
            let want =
                p.isRoot
                ? nil
                : inventory.index(of: p).map { map.attribution(container: 0, entry: $0) } ?? map.attribution(of: p)
            XCTAssertEqual(map.attribution(of: f)?.name, want?.name, p.display)
            XCTAssertEqual(map.attribution(of: f)?.entry?.holds, want?.entry?.holds, p.display)
        }
        XCTAssertNil(map.attribution(of: Finding(ruleId: "r", severity: .note, path: nil, message: "")))

        // `inventory`, a real run of the binary: `owner` and `ownerKind` on every line.
        let (entries, _, run) = try CLI.inventory(root)
        XCTAssertEqual(run.status, 0, run.stderr)
        for (p, i) in pathExamples {
            XCTAssertEqual(entries[p]?["owner"] as? String, catalogue[i].owner, p)
            XCTAssertEqual(entries[p]?["ownerKind"] as? String, catalogue[i].kind.rawValue, p)
        }
        XCTAssertTrue(entries["Documents/notes.txt"]?["owner"] is NSNull, "an unmatched path has owner null")
        XCTAssertTrue(entries["Documents/notes.txt"]?["ownerKind"] is NSNull)

        // The JSON report: every owner in the domain's `owners`, with its files and bytes.
        let (json, _) = try CLI.scanJSON([root])
        let domain = try XCTUnwrap((json["domains"] as? [[String: Any]])?.first)
        let owners = try XCTUnwrap(domain["owners"] as? [[String: Any]])
        let byName = Dictionary(owners.map { ($0["owner"] as! String, $0) }, uniquingKeysWith: { a, _ in a })
        for (p, i) in pathExamples {
            let row = byName[catalogue[i].owner]
            XCTAssertNotNil(row, "\(p): \(catalogue[i].owner) missing from owners")
            XCTAssertEqual(row?["kind"] as? String, catalogue[i].kind.rawValue)
            XCTAssertGreaterThan(row?["files"] as? Int ?? 0, 0)
        }
        // Bugsnag: two files of 100 bytes in Application Support, not excluded, and BugSnag
        // Performance's one in Caches.
        XCTAssertEqual(byName["Bugsnag"]?["files"] as? Int, 3)
        XCTAssertEqual(byName["Bugsnag"]?["backedUpBytes"] as? Int, 200)
        XCTAssertEqual(byName["Bugsnag"]?["size"] as? Int, 300)
        // Sentry: Caches (io.sentry and SentryCrash), not backed up.
        XCTAssertEqual(byName["Sentry"]?["backedUpBytes"] as? Int, 0)
        XCTAssertEqual(byName["Sentry"]?["size"] as? Int, 300)
    }

    func testKeyPrefixEntriesNameTheOwnerOfKeysInTheAppsPreferences() throws {
        let matcher = OwnerMatcher()
        for e in catalogue where !e.keyPrefixes.isEmpty {
            for key in e.examples { XCTAssertEqual(matcher.keyOwner(key)?.owner, e.owner, key) }
        }
        XCTAssertNil(matcher.keyOwner("theme"))
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        try Fixture.plist(
            root + "/Library/Preferences/com.example.app.plist", keys: [("flutter.cachedFeed", 600_000), ("theme", 10)])
        let result = try audit(root)
        let f = try XCTUnwrap(result.findings.first { $0.ruleId == "large-user-defaults" })
        XCTAssertTrue(f.message.contains("\"flutter.cachedFeed\" "), f.message)
        XCTAssertTrue(f.message.contains(" (Flutter shared_preferences's)"), f.message)
        XCTAssertEqual(
            f.message.components(separatedBy: "'s)").count, 2, "only the owned key names an owner: \(f.message)")
    }

    func testPolicyOwnersComeBeforeTheCatalogueAndTheLastLineWins() throws {
        let dir = try TempDir()
        let root = try makeContainer(dir)
        let config = dir.sub("policy.yml")
        try """
        owners:
          "Library/Caches/io.sentry": crash-team
          "Library/Application Support/**": platform
          "Library/Application Support/com.bugsnag.Bugsnag": crash-team
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["inventory", "--config", config, root])
        XCTAssertEqual(r.status, 0, r.stderr)
        var owner: [String: (Any?, Any?)] = [:]
        for line in r.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            owner[o["path"] as! String] = (o["owner"], o["ownerKind"])
        }
        func check(_ path: String, _ name: String, _ kind: String, line: UInt = #line) {
            XCTAssertEqual(owner[path]?.0 as? String, name, path, line: line)
            XCTAssertEqual(owner[path]?.1 as? String, kind, path, line: line)
        }
        check("Library/Caches/io.sentry/0a1b2c/envelopes/1.envelope", "crash-team", "team")
        check("Library/Application Support/com.bugsnag.Bugsnag/com.example.app/v1/events/1.json", "crash-team", "team")
        check("Library/Application Support/segment/WRITEKEY/0-segment-events.temp", "platform", "team")
        check("Library/Caches/com.datadoghq/v2/4e3a/rum/v2/batch-1", "Datadog", "sdk")
        check("Library/WebKit/WebsiteData/LocalStorage/https_example.com_0.localstorage", "WebKit", "framework")
        XCTAssertTrue(owner["Documents/notes.txt"]?.0 is NSNull)

        // The report counts the team's bytes, and names the finding's owner with what to do.
        let (json, _) = try CLI.scanJSON(["--config", config, root])
        let owners = try XCTUnwrap((json["domains"] as? [[String: Any]])?.first?["owners"] as? [[String: Any]])
        let crash = try XCTUnwrap(owners.first { $0["owner"] as? String == "crash-team" })
        XCTAssertEqual(crash["kind"] as? String, "team")
        // Sentry's two files and Bugsnag's own folder's one: bugsnag-shared-… is only under
        // "Library/Application Support/**", platform's.
        XCTAssertEqual(crash["files"] as? Int, 3)
        XCTAssertEqual(owners.first { $0["owner"] as? String == "platform" }?["kind"] as? String, "team")
        // Bugsnag keeps only BugSnag Performance's file, in Caches: no line of the policy covers it.
        let bugsnag = owners.first { $0["owner"] as? String == "Bugsnag" }
        XCTAssertEqual(bugsnag?["files"] as? Int, 1)
        XCTAssertEqual(bugsnag?["backedUpBytes"] as? Int, 0)
    }

    func testFindingsNameTheOwnerItsSourceAndWhatToDo() throws {
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/com.bugsnag.Bugsnag/big.json", size: 11_000_000)
        let (json, _) = try CLI.scanJSON([root])
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let f = try XCTUnwrap(findings.first { $0["ruleId"] as? String == "oversized-backed-up-file" })
        XCTAssertEqual(f["owner"] as? String, "Bugsnag")
        XCTAssertEqual(f["ownerKind"] as? String, "sdk")
        let owner = try XCTUnwrap(f["ownerDetail"] as? [String: Any])
        XCTAssertEqual(owner["excludedBySDK"] as? String, "not-excluded")
        XCTAssertEqual((owner["source"] as? [String: Any])?["repository"] as? String, "bugsnag/bugsnag-cocoa")
        XCTAssertEqual((owner["source"] as? [String: Any])?["file"] as? String, "Bugsnag/Storage/BSGFileLocations.m")
        XCTAssertEqual((owner["source"] as? [String: Any])?["commit"] as? String, "84fb011")
        XCTAssertTrue((owner["advice"] as? String ?? "").contains("Exclude"))
        let text = try CLI.run(["scan", root])
        XCTAssertTrue(text.stdout.contains("owner: Bugsnag (sdk): Bugsnag's crash reports"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "Source: https://github.com/bugsnag/bugsnag-cocoa/blob/84fb011/Bugsnag/Storage/"
                    + "BSGFileLocations.m#L33-L120, lines 33-120"
            ), text.stdout)
        XCTAssertTrue(text.stdout.contains("owners"), text.stdout)
        let md = try CLI.run(["scan", "--format", "markdown", root])
        XCTAssertTrue(md.stdout.contains("| AppDomain-") || md.stdout.contains("Who owns the bytes"), md.stdout)
        XCTAssertTrue(md.stdout.contains("(owner: Bugsnag)"), md.stdout)
        let html = try CLI.run(["scan", "--format", "html", root])
        XCTAssertTrue(html.stdout.contains("acked-up bytes by owner"), String(html.stdout.prefix(400)))
        XCTAssertTrue(
            html.stdout.contains("<title>Bugsnag (sdk): \(ByteSize.format(11_000_000)) backed up, 1 files</title>"),
            "the owner treemap has Bugsnag's tile")
        XCTAssertTrue(html.stdout.contains("<br><small>owner: Bugsnag (sdk)"), "the finding names its owner")
        // The CI formats too: SARIF's result properties, the annotation's text, the JUnit case.
        let sarif = try XCTUnwrap(
            JSONSerialization.jsonObject(with: try CLI.run(["scan", "--format", "sarif", root]).stdoutBytes)
                as? [String: Any])
        let results = try XCTUnwrap(((sarif["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        let result = try XCTUnwrap(results.first { $0["ruleId"] as? String == "oversized-backed-up-file" })
        let properties = try XCTUnwrap(result["properties"] as? [String: Any])
        XCTAssertEqual(properties["owner"] as? String, "Bugsnag")
        XCTAssertEqual(properties["ownerKind"] as? String, "sdk")
        XCTAssertEqual(
            ((properties["ownerDetail"] as? [String: Any])?["source"] as? [String: Any])?["repository"] as? String,
            "bugsnag/bugsnag-cocoa")
        let github = try CLI.run(["scan", "--format", "github", root]).stdout
        let annotation = try XCTUnwrap(github.split(separator: "\n").first { $0.contains("oversized-backed-up-file") })
        XCTAssertTrue(annotation.contains("%0Aowner: Bugsnag (sdk): Bugsnag's crash reports"), String(annotation))
        let junit = try CLI.run(["scan", "--format", "junit", "--junit-warnings", "failure", root]).stdout
        XCTAssertTrue(junit.contains("&#10;owner: Bugsnag (sdk): Bugsnag&#39;s crash reports"), junit)
    }

    func testListedPathsInTheJSONReportNameTheirOwner() throws {
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/segment/k/0-segment-events", size: 500)
        try Fixture.file(root + "/Documents/notes.txt", size: 400)
        let config = dir.sub("policy.yml")
        try "budgets:\n  backup: 1B\n".write(toFile: config, atomically: true, encoding: .utf8)
        let baseline = dir.sub("baseline.json")
        let wrote = try CLI.run(["scan", "--write-baseline", baseline, root])
        XCTAssertEqual(wrote.status, 0, wrote.stderr)
        try Fixture.file(root + "/Library/Application Support/segment/k/0-segment-events", size: 900)
        let (json, _) = try CLI.scanJSON(["--config", config, "--baseline", baseline, root])
        let grew = try XCTUnwrap((json["baseline"] as? [String: Any])?["grew"] as? [[String: Any]])
        XCTAssertEqual(grew.first?["path"] as? String, "Library/Application Support/segment/k/0-segment-events")
        XCTAssertEqual(grew.first?["owner"] as? String, "Segment")
        let contributors = try XCTUnwrap(
            (json["budgets"] as? [[String: Any]])?.first?["contributors"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: contributors.map { ($0["path"] as! String, $0["owner"]) })
        XCTAssertEqual(byPath["Library/Application Support/segment/k/0-segment-events"] as? String, "Segment")
        XCTAssertTrue(byPath["Documents/notes.txt"] is NSNull)
    }

    func testBudgetsTargetAnOwner() throws {
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/com.bugsnag.Bugsnag/a.json", size: 3000)
        try Fixture.file(root + "/Library/Application Support/segment/k/0-segment-events", size: 500)
        let policy = try PolicyFile.parse(
            """
            budgets:
              owners:
                Bugsnag: 2kB
                Segment: 1kB
            """, source: "test.yml")
        let result = try audit(root, policy: policy)
        let bugsnag = try XCTUnwrap(result.budgets.first { $0.budget.scope == .owner("Bugsnag") })
        XCTAssertEqual(bugsnag.measured, 3000)
        XCTAssertTrue(bugsnag.exceeded)
        XCTAssertEqual(
            bugsnag.contributors.first?.path.display, "Library/Application Support/com.bugsnag.Bugsnag/a.json")
        let segment = try XCTUnwrap(result.budgets.first { $0.budget.scope == .owner("Segment") })
        XCTAssertEqual(segment.measured, 500)
        XCTAssertFalse(segment.exceeded)
        XCTAssertEqual(result.findings.filter { $0.ruleId == "budget-exceeded" }.count, 1)
        // The effective configuration renders it back.
        let again = try PolicyFile.parse(PolicyFile.render(policy), source: "rendered")
        XCTAssertEqual(again.budgets.map(\.scope), policy.budgets.map(\.scope))
    }

    func testOwnersInThePolicyFileParseRenderAndFailClearly() throws {
        let p = try PolicyFile.parse(
            "owners:\n  \"Documents/**\": app\n  \"Library/Caches/x\": \"cache team\"\n", source: "o.yml")
        XCTAssertEqual(p.owners.map(\.owner), ["app", "cache team"])
        XCTAssertEqual(p.owners.map(\.glob.pattern), ["Documents/**", "Library/Caches/x"])
        let again = try PolicyFile.parse(PolicyFile.render(p), source: "rendered")
        XCTAssertEqual(again.owners.map(\.owner), p.owners.map(\.owner))
        XCTAssertEqual(again.owners.map(\.glob.pattern), p.owners.map(\.glob.pattern))
        for (text, message) in [
            ("owners:\n  - Documents\n", "o.yml:2:3: owners must be a mapping (key: value lines)"),
            ("owners:\n  \"Documents/[a\": app\n", "o.yml:2:3: owners: bad glob 'Documents/[a': unclosed '[' in glob"),
            ("owners:\n  Documents: [a, b]\n", "o.yml:2:14: owners.Documents must be a single value"),
            ("budgets:\n  owners: 2MB\n", "o.yml:2:11: budgets.owners must be a mapping (key: value lines)"),
            ("budgets:\n  owners:\n    Firebase: lots\n", "o.yml:3:15: budgets.owners.Firebase: 'lots' is not a size"),
        ] {
            XCTAssertThrowsError(try PolicyFile.parse(text, source: "o.yml"), text) { error in
                XCTAssertTrue(
                    "\(error)".hasPrefix(message) || (error as? InputError)?.message.hasPrefix(message) == true,
                    "\(error)")
            }
        }
    }
}
