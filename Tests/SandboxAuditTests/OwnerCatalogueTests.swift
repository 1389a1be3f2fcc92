import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The owner catalogue, tested like the rules: every entry's examples are built as a real
/// container and attributed, by the library, by `inventory` and by the JSON report.
final class OwnerCatalogueTests: XCTestCase {
    let catalogue = OwnerCatalogue.all

    func testEveryEntryHasASourceAndExamplesAndItsGlobsParse() throws {
        for e in catalogue {
            let what = "\(e.owner): \(e.holds)"
            XCTAssertFalse(e.owner.isEmpty)
            XCTAssertFalse(e.holds.isEmpty, what)
            XCTAssertFalse(e.advice.isEmpty, what)
            XCTAssertFalse(e.examples.isEmpty, what)
            XCTAssertFalse(e.matches.isEmpty, what)
            XCTAssertFalse(e.source.file.isEmpty, what)
            for m in e.matches + e.legacy {
                if let g = m.glob { XCTAssertNoThrow(try Glob(g), "\(what): \(g)") }
            }
            for p in e.confirmedBy {
                XCTAssertFalse(p.contains { "*?[".contains($0) }, "\(what): a confirming path is literal: \(p)")
            }
            if e.evidence == .docs {
                // An Apple framework: the page of Apple's documentation of the API.
                XCTAssertEqual(e.kind, .framework, what)
                XCTAssertTrue(e.source.url.hasPrefix("https://developer.apple.com/documentation/"), what)
                XCTAssertTrue(e.advice.contains { $0.isUppercase }, "\(what): advice names the API")
                continue
            }
            XCTAssertTrue(e.source.repository.contains("/"), "\(what): a repository is owner/name")
            // Without a line to point at, the entry was only observed (an issue, a listing).
            if e.source.line == nil { XCTAssertEqual(e.evidence, .observed, what) }
            XCTAssertTrue(e.source.url.hasPrefix("https://github.com/\(e.source.repository)/"), what)
            XCTAssertFalse(e.source.url.contains(" "), what)
            if e.evidence == .code { XCTAssertNotNil(e.source.line, "\(what): code is cited with its lines") }
            if !e.legacy.isEmpty { XCTAssertNotNil(e.history, "\(what): a legacy location says when it moved") }
        }
    }

    /// The examples of the entries that match paths, each with the index of its entry.
    var pathExamples: [(path: String, entry: Int)] {
        catalogue.enumerated().flatMap { i, e in e.keyPrefixes.isEmpty ? e.examples.map { ($0, i) } : [] }
    }

    func makeContainer(_ dir: TempDir, size: Int = 100) throws -> String {
        let root = dir.sub("container")
        try Fixture.container(at: root)
        for (p, _) in pathExamples { try Fixture.file(root + "/" + p, size: size) }
        try Fixture.file(root + "/Documents/notes.txt", size: size)
        return root
    }
}

extension OwnerCatalogueTests {
    /// The matcher's shortcuts (components read from each end, literal heads and tails checked
    /// first, globs picked by depth and first component) agree with `Glob.covers`: the owner
    /// is the last glob covering the path, in a real container and path by path.
    func testTheMatcherAgreesWithGlobCoversForEveryKindOfGlob() throws {
        let patterns = [
            "Documents", "Documents/*.txt", "**/*.db", "Library/**", "Library/**/x?.bin", "**/cache/**/*.tmp",
            "tmp/[a-c]*", "*/Caches/*/Cache.db", "**", "Library/Caches/**/deep", "Documents/a/b/c",
        ]
        let rules = try patterns.enumerated().map { OwnerRule(glob: try Glob($1), owner: "r\($0)") }
        let dir = try TempDir()
        let root = dir.sub("c")
        try Fixture.container(at: root)
        let paths = [
            "Documents/notes.txt", "Documents/a/b/c/d.txt", "Documents/x.db", "Library/Caches/app/Cache.db",
            "Library/Caches/a/b/deep/f", "Library/Application Support/x1.bin", "tmp/apple", "tmp/zebra",
            "tmp/cache/1/2/file.tmp", "Library/Preferences/p.plist", "rootfile",
        ]
        for p in paths { try Fixture.file(root + "/" + p, size: 1) }
        let inventory = try Audit.inventory(of: root)
        for subset in [rules, Array(rules.dropLast(3)), [rules[2], rules[5]], [rules[4]]] {
            let matcher = OwnerMatcher(rules: subset, catalogue: [])
            let codes = matcher.codes(inventory)
            for (i, e) in inventory.entries.enumerated() {
                let expected = subset.lastIndex { $0.glob.covers(e.path) }.map { subset[$0].owner }
                XCTAssertEqual(matcher.attribution(code: codes[i])?.name, expected, e.path.display)
                XCTAssertEqual(matcher.attribution(of: e.path)?.name, expected, e.path.display)
            }
        }
    }
}

extension OwnerCatalogueTests {
    /// Baselines record each file's owner, so `compare` of two of them names the owner of a
    /// grown Firebase folder and of a new Realm file.
    func testBaselinesRecordOwnersAndCompareNamesThem() throws {
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/Google/FirebaseMessaging/rmq2.sqlite", size: 4096)
        try Fixture.file(root + "/Documents/notes.txt", size: 10)
        let base = dir.sub("base.json")
        let head = dir.sub("head.json")
        XCTAssertEqual(try CLI.run(["scan", "--write-baseline", base, root]).status, 0)
        try Fixture.file(root + "/Library/Application Support/Google/FirebaseMessaging/rmq2.sqlite", size: 900_000)
        try Fixture.file(root + "/Documents/default.realm", size: 500_000)
        XCTAssertEqual(try CLI.run(["scan", "--write-baseline", head, root]).status, 0)

        let recorded = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: head))) as? [String: Any])
        let files = try XCTUnwrap(recorded["files"] as? [[String: Any]])
        let owner = Dictionary(uniqueKeysWithValues: files.map { ($0["path"] as! String, $0["owner"]) })
        XCTAssertEqual(owner["Documents/default.realm"] as? String, "Realm")
        XCTAssertEqual(owner["Library/Application Support/Google/FirebaseMessaging/rmq2.sqlite"] as? String, "Firebase")
        XCTAssertTrue(owner["Documents/notes.txt"] is NSNull)

        for format in ["text", "markdown", "json"] {
            let r = try CLI.run(["compare", "--format", format, base, head])
            XCTAssertEqual(r.status, 0, r.stderr)  // no --fail-on-growth, and both scans complete
            XCTAssertTrue(r.stdout.contains("Firebase"), "\(format): \(r.stdout)")
            XCTAssertTrue(r.stdout.contains("Realm"), "\(format): \(r.stdout)")
        }
    }
}

extension OwnerCatalogueTests {
    /// The app's own files named like an SDK.
    static let lookAlikes = [
        "Library/mixpanel-export.csv", "Documents/sentry-notes.txt", "Library/Caches/sentry-cache/x",
        "Library/Caches/io.sentry-notes.txt", "Library/Caches/io.sentry.backup/envelope", "Library/Caches/my-io.sentry",
        "Library/Application Support/com.bugsnag.Bugsnag-export.json",
        "Library/Application Support/bugsnag-shared-export.csv",
        "Library/Caches/bugsnag-performance-notes.txt", "Library/Application Support/io.embrace.data.backup/db.sqlite",
        "Library/Application Support/segment-notes.txt", "Library/Application Support/segmentio.queue.plist.bak",
        "Library/Application Support/amplitude-export.csv", "Library/com.amplitude.database.bak",
        "Library/clevertap-export.plist", "Library/klaviyo-export.json", "Library/klaviyo-notes.txt",
        "Documents/OPTEventQueue-backup", "Documents/CleverTap-Events.db.bak", "Library/snowplow-export.csv",
        "Library/Caches/Logs/app.log", "Library/Caches/Logs/session 2026-11-27.log", "Library/Caches/KSCrash-notes.txt",
        "Library/Caches/statsig-cache-notes.txt", "Library/Application Support/com.example.app/posthog-export.csv",
        "Library/Preferences/com.launchdarkly.plist", "Documents/SQLite-export.csv", "Documents/appcues/notes.txt",
        "Library/Application Support/Countly.dat.bak", "Library/rl_persistence-notes.txt",
        "Library/Caches/swiftybeaver-2.log",
        "Library/Application Support/CouchbaseLite-notes.txt", "Library/Application Support/io.customer.backup/x",
        "Library/Caches/com.raygun.backup/x", "Library/Caches/com.plausiblelabs.crashreporter.data.backup/x",
    ]

    /// Every path glob whose last component is a literal reverse-DNS name (`io.sentry`,
    /// `com.microsoft.appcenter`) or a literal vendor name: the same name with a suffix or a
    /// prefix, in the same folder, is not that entry's (it has its folder's owner, if any; the
    /// container's root has none).
    var exactNameSiblings: [(path: String, folder: String)] {
        var out: [(path: String, folder: String)] = []
        for e in catalogue {
            for m in e.matches + e.legacy {
                guard case .path(let g) = m else { continue }
                var parts = g.split(separator: "/").map(String.init)
                guard let last = parts.popLast(), !last.contains(where: { "*?[".contains($0) }),
                    !parts.contains(where: { $0.contains("**") || $0.contains("[") || $0.contains("?") })
                else { continue }
                let dir = parts.map { $0.replacingOccurrences(of: "*", with: "app") }.joined(separator: "/")
                for name in [last + "-notes.txt", last + ".old", "my-" + last, last + "2"] {
                    out.append((dir.isEmpty ? name : dir + "/" + name, dir))
                }
            }
        }
        return out
    }

    func testTheCatalogueHasEightyEntriesEachWithItsSourceCommit() {
        XCTAssertGreaterThanOrEqual(catalogue.count, 80)
        // Line numbers are a commit's: an entry cited by its lines names the commit they were read
        // at (an entry cited by a symbol, as WebKit's, is found by that name on the default branch).
        for e in catalogue where e.evidence == .code && e.source.line?.first?.isNumber == true {
            XCTAssertNotNil(e.source.commit, "\(e.owner) (\(e.source.repository)): the commit its lines were read at")
        }
    }

    /// App files named like an SDK get no owner: vendor folders are matched by their exact
    /// name, never by a prefix that can take an app's own file; in the library and in `inventory`.
    func testAppFilesNamedLikeAnSDKGetNoOwner() throws {
        let siblings = exactNameSiblings
        XCTAssertGreaterThan(siblings.count, 300, "the reverse-DNS and vendor folders' siblings")
        XCTAssertTrue(siblings.contains { $0.path == "Library/Caches/io.sentry-notes.txt" })
        let dir = try TempDir()
        let root = try makeContainer(dir)
        for p in Self.lookAlikes + siblings.map(\.path) { try Fixture.file(root + "/" + p, size: 10) }
        let inventory = try Audit.inventory(of: root)
        let map = OwnerMap([inventory], rules: [])
        let index = Dictionary(uniqueKeysWithValues: inventory.entries.enumerated().map { ($1.path.display, $0) })
        for p in Self.lookAlikes {
            guard let at = index[p] else {
                XCTFail("\(p) not in the inventory")
                continue
            }
            XCTAssertNil(map.attribution(container: 0, entry: at)?.name, p)
            XCTAssertNil(map.attribution(of: ContainerPath(p))?.name, p)
        }
        for (p, folder) in siblings {
            guard let at = index[p] else {
                XCTFail("\(p) not in the inventory")
                continue
            }
            let expected = folder.isEmpty ? nil : map.attribution(of: ContainerPath(folder))?.entry?.holds
            XCTAssertEqual(map.attribution(container: 0, entry: at)?.entry?.holds, expected, p)
            XCTAssertEqual(map.attribution(of: ContainerPath(p))?.entry?.holds, expected, p)
        }
        // The SDKs' own paths beside them keep their owners.
        for (p, i) in pathExamples {
            guard let at = index[p] else {
                XCTFail("\(p) not in the inventory")
                continue
            }
            XCTAssertEqual(map.attribution(container: 0, entry: at)?.entry?.holds, catalogue[i].holds, p)
        }
        let (entries, _, run) = try CLI.inventory(root)
        XCTAssertEqual(run.status, 0, run.stderr)
        for p in Self.lookAlikes {
            XCTAssertTrue(entries[p]?["owner"] is NSNull, "\(p): \(entries[p]?["owner"] ?? "missing")")
        }
    }
}

extension OwnerCatalogueTests {
    /// An SDK whose files are backed up or grew: the Markdown report gives what to tell its
    /// maintainers (paths, sizes, growth since the baseline, the SDK's own source line) as a
    /// block ready to paste into an issue; the figures are the inventory's.
    func testTheReportSaysWhatToTellAnSDKsMaintainers() throws {
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        let events = "Library/Application Support/com.bugsnag.Bugsnag/com.example.app/v1/events/1.json"
        let sessions = "Library/Application Support/com.bugsnag.Bugsnag/com.example.app/v1/sessions/1.json"
        let queue = "Documents/OPTEventQueue"
        try Fixture.file(root + "/" + events, size: 4_000)
        try Fixture.file(root + "/" + queue, size: 1_000)
        try Fixture.file(root + "/Library/Caches/io.sentry/0a1b2c/envelopes/1.envelope", size: 9_000)
        try Fixture.file(root + "/Documents/mixpanel-export.csv", size: 7_000)

        // Without a baseline: what is backed up, "no baseline" for growth.
        let first = try CLI.run(["scan", "--format", "markdown", root])
        XCTAssertEqual(first.status, 0, first.stderr)  // no finding at error
        XCTAssertTrue(first.stdout.contains("### What to tell the SDKs' maintainers"), first.stdout)
        XCTAssertTrue(
            first.stdout.contains("| \(MarkdownReport.cell(events)) | \(ByteSize.format(4_000)) | yes | no baseline |"),
            first.stdout)

        let base = dir.sub("base.json")
        XCTAssertEqual(try CLI.run(["scan", "--write-baseline", base, root]).status, 0)
        try Fixture.file(root + "/" + events, size: 250_000)
        try Fixture.file(root + "/" + sessions, size: 3_000)
        try Fixture.file(root + "/Library/Caches/io.sentry/0a1b2c/envelopes/1.envelope", size: 9_000)

        // The library: one note per SDK entry with backed-up or grown files, figures from the inventory.
        let result = try audit(root, baseline: try Baseline.load(base))
        let notes = OwnerReport.maintainerNotes(result)
        XCTAssertEqual(notes.map(\.entry.owner), ["Bugsnag", "Optimizely"])
        let bugsnag = try XCTUnwrap(notes.first)
        XCTAssertEqual(bugsnag.files.map(\.path.display), [events, sessions], "largest growth first")
        XCTAssertEqual(bugsnag.backedUpBytes, 253_000)
        XCTAssertEqual(bugsnag.growth, 250_000 - 4_000 + 3_000)
        XCTAssertEqual(bugsnag.files.first?.before, 4_000)
        XCTAssertEqual(bugsnag.files.last?.added, true)
        let inventory = try XCTUnwrap(result.inventories.first)
        let sizes = Dictionary(uniqueKeysWithValues: inventory.entries.map { ($0.path.display, $0.entry.contentSize) })
        for f in bugsnag.files { XCTAssertEqual(f.size, sizes[f.path.display], f.path.display) }
        XCTAssertEqual(notes.last?.growth, 0, "the Optimizely queue is backed up, and did not grow")

        // The report: a heading per SDK and its issue text in a fenced block, with the source line.
        let md = try CLI.run(["scan", "--format", "markdown", "--baseline", base, root])
        XCTAssertEqual(md.status, 0, md.stderr)
        let out = md.stdout
        XCTAssertTrue(
            out.contains(
                "#### Bugsnag ([bugsnag/bugsnag-cocoa](https://github.com/bugsnag/bugsnag-cocoa)): "
                    + "\(ByteSize.format(253_000)) backed up, +\(ByteSize.format(249_000)) since the baseline"
            ), out)
        XCTAssertTrue(
            out.contains(
                "| \(MarkdownReport.cell(events)) | \(ByteSize.format(250_000)) | yes | "
                    + "+\(ByteSize.format(246_000)) |"),
            out)
        XCTAssertTrue(
            out.contains(
                "| \(MarkdownReport.cell(sessions)) | \(ByteSize.format(3_000)) | yes | new, "
                    + "+\(ByteSize.format(3_000)) |"
            ), out)
        XCTAssertTrue(
            out.contains(
                "Where the SDK builds this path: "
                    + "[bugsnag/bugsnag-cocoa/Bugsnag/Storage/BSGFileLocations.m](https://github.com/bugsnag/"
                    + "bugsnag-cocoa/blob/84fb011/Bugsnag/Storage/BSGFileLocations.m#L33-L120), 33-120 (read at "
                    + "commit 84fb011)."
            ), out)
        XCTAssertTrue(
            out.contains(
                "**Bugsnag: Bugsnag's crash reports, sessions and breadcrumbs (32 events, 128 sessions), in the "
                    + "device and iCloud backup, and grew by \(ByteSize.format(249_000)) since the baseline**"
            ), out)
        XCTAssertTrue(
            out.contains(
                "The SDK does not set the exclude-from-backup attribute on them: no exclusion anywhere in its "
                    + "storage code"
            ), out)
        XCTAssertTrue(
            out.contains(
                "[optimizely/swift-sdk/Sources/Implementation/Datastore/DataStoreFile.swift](https://github.com/"
                    + "optimizely/swift-sdk/blob/68eeee5/Sources/Implementation/Datastore/DataStoreFile.swift#L33-L46)"
            ), out)
        // Each block opens and closes its fence; Sentry (Caches, unchanged) and the app's own file get none.
        let section = try XCTUnwrap(out.components(separatedBy: "### What to tell the SDKs' maintainers").last)
        XCTAssertEqual(section.components(separatedBy: "````markdown").count - 1, 2)
        XCTAssertEqual(section.components(separatedBy: "\n````\n").count - 1, 2)
        XCTAssertFalse(section.contains("io.sentry"), section)
        XCTAssertFalse(section.contains("mixpanel-export"), section)

        // The text report names each SDK with its source.
        let text = try CLI.run(["scan", "--baseline", base, root]).stdout
        XCTAssertTrue(
            text.contains(
                "Bugsnag: \(ByteSize.format(253_000)) backed up in 2 file(s), +\(ByteSize.format(249_000)) since the "
                    + "baseline; source: "
                    + "https://github.com/bugsnag/bugsnag-cocoa/blob/84fb011/Bugsnag/Storage/"
                    + "BSGFileLocations.m#L33-L120, lines 33-120"
            ), text)
    }
}
