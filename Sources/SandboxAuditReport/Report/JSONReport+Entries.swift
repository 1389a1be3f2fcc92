import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSources
import SandboxAuditSystem

extension JSONReport {
    /// The banner `inventory` writes on standard error when the walk missed part of the input
    /// (the same first words as `scan`'s), with what it missed; nil when everything was read.
    public static func incompleteBanner(_ inventories: [Inventory]) -> String? {
        SimulationReport.incompleteBanner(Completeness(inventories), multiDomain: inventories.count > 1)
    }

    /// One `inventory` line, written straight into `out`: the fields in the order
    /// docs/json-format.md gives, without building a `JSON` value per entry first.
    static func entry(
        _ e: InventoryEntry, domain: String, owner: Attribution? = nil, notRead: String? = nil,
        source: [SourceLocation]? = nil, into out: inout [UInt8]
    ) {
        let w = e.entry
        var o = JSONObjectWriter(&out)
        defer { o.end(&out) }
        o.string("domain", domain, &out)
        o.path("path", "pathBase64", e.path, &out)
        o.string("kind", w.kind.rawValue, &out)
        if let special = w.special { o.string("special", special.rawValue, &out) }
        o.string("zone", e.zone.rawValue, &out)
        o.string("owner", owner?.name, &out)
        o.string("ownerKind", owner?.kind, &out)
        o.int("size", w.size, &out)
        o.int("allocated", w.allocated, &out)
        o.int("mtime", w.modifiedSeconds, &out)
        o.string("mode", String(w.mode & 0o7777, radix: 8), &out)
        o.int("links", Int64(w.linkCount), &out)
        o.bool("countsInTotals", e.countsInTotals, &out)
        o.bool("excluded", e.excluded, &out)
        o.path("excludedBy", "excludedByBase64", e.excludedBy, &out)
        o.bool("backedUp", e.backedUp, &out)
        o.bool("survivesUpdate", e.survivesUpdate, &out)
        o.bool("survivesRestore", e.survivesRestore, &out)
        if let target = w.symlinkTarget { o.string("symlinkTarget", ByteText.display(target), &out) }
        o.string("protectionClass", w.protectionClass?.name, &out)
        o.value("attributes", .array(w.marks.map(mark)), &out)
        if let notRead { o.string("notRead", notRead, &out) }
        if let source { o.value("source", JSONReport.source(source), &out) }
    }

    static func mark(_ m: AttributeMark) -> JSON {
        var fields: [(String, JSON)] = [
            ("attribute", .string(m.attribute.macName)),
            ("source", .string(m.source.kind)),
            ("from", .string(m.source.detail)),
        ]
        if m.attribute == .exclude { fields.append(("valueClass", .string(m.valueClass.rawValue))) }
        fields.append(("valueHex", .string(ByteText.hexString(m.value))))
        fields.append(("meaning", .string(m.attribute.meaning)))
        return .object(fields)
    }
}
