import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// Text and JSON for `simulate`: kept and lost files and bytes per zone, the lost items that
/// matter most, and what was materialised and verified.
public enum SimulationReport {
    static let notableShown = 20

    /// The text of a run: one event in full, or every event side by side, per container.
    public static func text(_ run: SimulationRun) -> String {
        (incompleteBanner(run.completeness, multiDomain: run.results.count > 1).map { $0 + "\n" } ?? "")
            + run.results.indices.map { i in
                run.results[i].count > 1
                    ? table(run.results[i])
                    : text(
                        run.results[i][0], materialized: run.materialized[i], mismatches: run.mismatches[i],
                        complete: run.completeness.complete)
            }.joined(separator: "\n")
    }

    public static func json(_ run: SimulationRun) -> JSON {
        guard case .object(var fields) = json(run.results, materialized: run.materialized, mismatches: run.mismatches)
        else { return .null }
        // After schemaVersion: whether everything was read, and what was not.
        fields.insert(
            contentsOf: [
                ("complete", .bool(run.completeness.complete)),
                ("missed", .array(run.completeness.missed.map(JSONReport.missed))),
            ], at: 1)
        return .object(fields)
    }

    /// The banner of a command that read an input and missed part of it, with what it missed:
    /// the same first words as `scan`'s ("INCOMPLETE SCAN: …"); nil when complete.
    static func incompleteBanner(_ completeness: Completeness, multiDomain: Bool) -> String? {
        guard !completeness.complete else { return nil }
        return
            ([Completeness.banner(completeness.missed.count, leavesOut: "the figures")]
            + completeness.lines(multiDomain: multiDomain))
            .map(TerminalText.escaped).joined(separator: "\n") + "\n"
    }

    static func title(_ event: SimulatedEvent) -> String {
        switch event {
        case .update: return "after an app update"
        case .restore: return "after a restore from backup onto a new device"
        case .purge: return "after a storage purge"
        }
    }

    static func text(
        _ s: SimulationResult, materialized: Materializer.Report? = nil, mismatches: [Verification.Mismatch]? = nil,
        complete: Bool = true
    ) -> String {
        let c = s.inventory.container
        let identity = c.domain + (c.version.map { " \($0)" } ?? "")
        var out =
            "sandbox-audit \(Audit.toolVersion): \(TerminalText.escaped(identity)) (\(c.role.rawValue) container, "
            + "\(TerminalText.escaped(c.kindDescription))), \(title(s.event))\n\n"
        out +=
            TextReport.pad("zone", 30) + TextReport.pad("files kept", 12, right: true)
            + TextReport.pad("kept", 11, right: true)
            + TextReport.pad("files lost", 12, right: true) + TextReport.pad("lost", 11, right: true) + "\n"
        for z in s.zones {
            out +=
                TextReport.pad(z.zone.title, 30) + TextReport.pad(String(z.keptFiles), 12, right: true)
                + TextReport.pad(ByteSize.format(z.keptBytes), 11, right: true)
                + TextReport.pad(String(z.lostFiles), 12, right: true)
                + TextReport.pad(ByteSize.format(z.lostBytes), 11, right: true) + "\n"
        }
        let kf = s.zones.reduce(0) { $0 + $1.keptFiles }
        let lf = s.zones.reduce(0) { $0 + $1.lostFiles }
        out +=
            TextReport.pad("total", 30) + TextReport.pad(String(kf), 12, right: true)
            + TextReport.pad(ByteSize.format(s.keptBytes), 11, right: true)
            + TextReport.pad(String(lf), 12, right: true)
            + TextReport.pad(ByteSize.format(s.lostBytes), 11, right: true) + "\n\n"
        if s.notable.isEmpty {
            out +=
                complete
                ? "no stores, large files or policy-protected data are lost\n"
                : "of what could be read, no stores, large files or policy-protected data are lost (the scan is "
                    + "incomplete)\n"
        } else {
            out += "lost items that matter most (\(s.notable.count)):\n"
            for l in s.notable.prefix(notableShown) {
                out +=
                    "  \(TerminalText.escaped(l.path.display))  \(ByteSize.format(l.size))  \(l.kind)\n      why: "
                    + "\(TerminalText.escaped(l.why))\n"
            }
            if s.notable.count > notableShown { out += "  … and \(s.notable.count - notableShown) more\n" }
        }
        if let m = materialized {
            out +=
                "\nmaterialised into \(TerminalText.escaped(m.destination)): \(m.directories) folders, \(m.files) "
                + "files (\(ByteSize.format(m.bytes))), \(m.links) hard links, \(m.symlinks) symlinks, "
                + "\(m.fifos) FIFOs"
            out +=
                m.skipped.isEmpty
                ? ""
                : "; not recreated (sockets, devices): "
                    + "\(TerminalText.escaped(m.skipped.map(\.display).joined(separator: ", ")))"
            out +=
                m.attributesNotCopied.isEmpty
                ? "\n"
                : "; attributes this file system refused: "
                    + "\(TerminalText.escaped(m.attributesNotCopied.joined(separator: ", ")))\n"
        }
        if let mismatches {
            if mismatches.isEmpty {
                out += "verified: the materialised container matches the prediction entry by entry\n"
            } else {
                out +=
                    "verification FAILED: \(mismatches.count) difference(s)\n"
                    + mismatches.prefix(20).map { "  \(TerminalText.escaped($0.description))\n" }.joined()
            }
        }
        return out + ByteSize.unitsNote + "\n"
    }

    /// Every event side by side: bytes per zone now and after each event.
    static func table(_ results: [SimulationResult]) -> String {
        guard let first = results.first else { return "" }
        let c = first.inventory.container
        var out =
            "sandbox-audit \(Audit.toolVersion): \(TerminalText.escaped(c.domain)) (\(c.role.rawValue) container, "
            + "\(TerminalText.escaped(c.kindDescription))), bytes kept per zone\n\n"
        out += TextReport.pad("zone", 30) + TextReport.pad("now", 11, right: true)
        for r in results { out += TextReport.pad("after \(r.event.rawValue)", 16, right: true) }
        out += "\n"
        for (i, z) in first.zones.enumerated() {
            out +=
                TextReport.pad(z.zone.title, 30)
                + TextReport.pad(ByteSize.format(z.keptBytes + z.lostBytes), 11, right: true)
            for r in results { out += TextReport.pad(ByteSize.format(r.zones[i].keptBytes), 16, right: true) }
            out += "\n"
        }
        out +=
            TextReport.pad("total", 30)
            + TextReport.pad(ByteSize.format(first.keptBytes + first.lostBytes), 11, right: true)
        for r in results { out += TextReport.pad(ByteSize.format(r.keptBytes), 16, right: true) }
        out += "\n"
        for r in results where !r.notable.isEmpty {
            out += "\n\(title(r.event)), lost items that matter most: "
            out += r.notable.prefix(5).map {
                "\(TerminalText.escaped($0.path.display)) (\(ByteSize.format($0.size)), \($0.kind))"
            }.joined(separator: ", ")
            out += r.notable.count > 5 ? ", …\n" : "\n"
        }
        return out + "\n" + ByteSize.unitsNote + "\n"
    }

    /// One list of events per container (backup domain), the app's data container first. The
    /// top-level `container` and `events` are the first domain's; `domains` has every one.
    static func json(
        _ perDomain: [[SimulationResult]], materialized: [Materializer.Report?] = [],
        mismatches: [[Verification.Mismatch]?] = []
    ) -> JSON {
        let domains: [JSON] = perDomain.indices.map { i in
            .object(
                [("domain", .string(perDomain[i].first?.inventory.domain ?? ""))]
                    + domainFields(
                        perDomain[i], materialized: i < materialized.count ? materialized[i] : nil,
                        mismatches: i < mismatches.count ? mismatches[i] : nil))
        }
        var fields: [(String, JSON)] = [("schemaVersion", .int(JSONReport.schemaVersion))]
        fields += domainFields(
            perDomain.first ?? [], materialized: materialized.first ?? nil, mismatches: mismatches.first ?? nil)
        fields.append(("domains", .array(domains)))
        return .object(fields)
    }

    static func domainFields(
        _ results: [SimulationResult], materialized: Materializer.Report?, mismatches: [Verification.Mismatch]?
    ) -> [(String, JSON)] {
        func one(_ s: SimulationResult) -> JSON {
            .object([
                ("event", .string(s.event.rawValue)),
                ("keptBytes", .int(s.keptBytes)),
                ("lostBytes", .int(s.lostBytes)),
                (
                    "zones",
                    .array(
                        s.zones.map { z in
                            .object([
                                ("zone", .string(z.zone.rawValue)), ("keptFiles", .int(Int64(z.keptFiles))),
                                ("keptBytes", .int(z.keptBytes)),
                                ("lostFiles", .int(Int64(z.lostFiles))), ("lostBytes", .int(z.lostBytes)),
                            ])
                        })
                ),
                (
                    "lost",
                    .array(
                        s.notable.map { l in
                            .object(
                                JSONReport.path(l.path) + [
                                    ("size", .int(l.size)), ("kind", .string(l.kind)), ("why", .string(l.why)),
                                ])
                        })
                ),
            ])
        }
        var fields: [(String, JSON)] = [
            ("container", results.first.map { JSONReport.container($0.inventory.container) } ?? .null),
            ("events", .array(results.map(one))),
        ]
        if let m = materialized {
            fields.append(
                (
                    "materialized",
                    .object([
                        ("destination", .string(m.destination)), ("directories", .int(Int64(m.directories))),
                        ("files", .int(Int64(m.files))),
                        ("hardLinks", .int(Int64(m.links))), ("symlinks", .int(Int64(m.symlinks))),
                        ("fifos", .int(Int64(m.fifos))),
                        ("bytes", .int(m.bytes)), ("notRecreated", .array(m.skipped.map { .string($0.display) })),
                    ])
                ))
        }
        if let mismatches {
            fields.append(("verified", .bool(mismatches.isEmpty)))
            fields.append(("differences", .array(mismatches.map { .string($0.description) })))
        }
        return fields
    }
}
