import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// How JUnit shows findings below the fail level (`scan --junit-warnings`).
public enum JUnitWarnings: String, CaseIterable, Sendable {
    /// Every finding is a failing case, whatever its severity.
    case failure
    /// Findings below the fail level are skipped cases, which Jenkins and GitLab list (the default).
    case skipped
    /// Findings below the fail level are passing cases with the finding as their output.
    case pass
}

/// JUnit XML, the format every CI server reads: one test suite per rule the policy leaves on, a
/// test case per subject it reported (failed when at or above the fail level; below it, skipped,
/// failed or passed as `warnings` says), a passing case for a rule that ran and found nothing, a
/// skipped case with its reason ("needs a baseline (--baseline)") where it could not run, and a
/// suite of budgets with one case each.
enum JUnitReport {
    static func render(_ report: ScanReport, warnings: JUnitWarnings = .skipped) -> String {
        let (result, failOn, allowIncomplete) = (report.result, report.failOn, report.allowIncomplete)
        let x = XMLText.escape
        var suites: [String] = []
        var totalTests = 0
        var totalFailures = 0
        var totalSkipped = 0
        // Completeness first: one case, failed when the scan missed something (system-err
        // naming what when --allow-incomplete accepts it).
        do {
            let listText = result.missed.map { x(result.place($0)) }.joined(separator: "&#10;")
            var body = ""
            var failures = 0
            if !result.complete {
                if allowIncomplete {
                    body = "\n      <system-err>\(x(result.incompleteSummary))&#10;\(listText)</system-err>\n    "
                } else {
                    failures = 1
                    body =
                        "\n      <failure type=\"incomplete\" "
                        + "message=\"\(x(result.incompleteSummary))\">\(listText)</failure>\n    "
                }
            }
            let testcase =
                body.isEmpty
                ? "    <testcase classname=\"scan\" name=\"complete\"/>"
                : "    <testcase classname=\"scan\" name=\"complete\">\(body)</testcase>"
            let properties = ProtectionReport.junitProperties(result).map {
                "      <property name=\"\(x($0))\" value=\"\(x($1))\"/>"
            }
            let propertyBlock = "    <properties>\n" + properties.joined(separator: "\n") + "\n    </properties>\n"
            suites.append(
                "  <testsuite name=\"scan\" tests=\"1\" failures=\"\(failures)\" errors=\"0\" "
                    + "skipped=\"0\">\n\(propertyBlock)\(testcase)\n  </testsuite>"
            )
            totalTests += 1
            totalFailures += failures
        }
        let byRule = Dictionary(grouping: report.findings, by: \.finding.ruleId)
        // An exceeded budget is a case of the budgets suite (below), not a second one here.
        let budgetsSuite = !report.budgets.isEmpty
        for rule in report.summary.rulesRun.compactMap(RuleCatalogue.rule(id:))
        where !(budgetsSuite && rule.id == RuleCatalogue.budgetExceededID) {
            let findings = byRule[rule.id] ?? []
            var cases: [String] = []
            var failures = 0
            var skipped = 0
            // Not run where the input or the run lacks what it needs: a skipped case with the
            // reason, never a passing one (one case when it ran nowhere, else one per domain).
            let notRun = result.notRun(rule.id)
            let applies = result.inventories.filter { rule.roles.contains($0.container.role) }.count
            let ranNowhere = !notRun.isEmpty && notRun.count == applies
            for n in notRun {
                skipped += 1
                let name = ranNowhere && notRun.count == 1 ? "container" : n.domain
                cases.append(
                    "    <testcase classname=\"\(x(rule.id))\" name=\"\(x(name))\">\n      <skipped "
                        + "message=\"\(x(n.reason))\"/>\n    </testcase>"
                )
            }
            if applies == 0 {
                // A rule for other containers than those scanned (an App Group rule on an app's
                // container alone) did not run either.
                skipped += 1
                cases.append(
                    "    <testcase classname=\"\(x(rule.id))\" name=\"container\">\n      <skipped message=\"not "
                        + "run: it checks \(x(RulesCatalogueReport.containers(rule))), and none was scanned\"/>\n "
                        + "   </testcase>"
                )
            } else if findings.isEmpty && !ranNowhere {
                cases.append("    <testcase classname=\"\(x(rule.id))\" name=\"container\"/>")
            }
            for item in findings {
                let f = item.finding
                let name = x(item.subject ?? f.domain ?? "app")
                let owner = item.owner.map { "&#10;" + x(OwnerReport.line($0)) } ?? ""
                if f.severity >= failOn || warnings == .failure {
                    failures += 1
                    cases.append(
                        """
                            <testcase classname="\(x(rule.id))" name="\(name)">
                              <failure type="\(f.severity.rawValue)" \
                        message="\(x(f.message))">\(x(f.message))&#10;fix: \
                        \(x(f.fixText ?? rule.description.fix))\(owner)</failure>
                            </testcase>
                        """)
                } else if warnings == .skipped {
                    skipped += 1
                    cases.append(
                        """
                            <testcase classname="\(x(rule.id))" name="\(name)">
                              <skipped message="\(x(f.severity.rawValue)): \(x(f.message))"/>
                              <system-out>\(x(f.severity.rawValue)): \(x(f.message))&#10;fix: \
                        \(x(f.fixText ?? rule.description.fix))\(owner)</system-out>
                            </testcase>
                        """)
                } else {
                    cases.append(
                        """
                            <testcase classname="\(x(rule.id))" name="\(name)">
                              <system-out>\(x(f.severity.rawValue)): \(x(f.message))\(owner)</system-out>
                            </testcase>
                        """)
                }
            }
            totalTests += cases.count
            totalFailures += failures
            totalSkipped += skipped
            suites.append(
                "  <testsuite name=\"\(x(rule.id))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" "
                    + "skipped=\"\(skipped)\">\n"
                    + cases.joined(separator: "\n") + "\n  </testsuite>")
        }
        if !report.budgets.isEmpty {
            // The budget-exceeded rule's severity decides, as for any rule's finding: failed at
            // or above the fail level, else as `warnings` says; passed when the rule is off.
            var cases: [String] = []
            var failures = 0
            var skipped = 0
            for b in report.budgets {
                let (r, severity) = (b.result, b.severity)
                let name = x(r.budget.name)
                let text =
                    "\(ByteSize.format(r.measured ?? 0)) of \(ByteSize.format(r.limit))"
                    + (r.exceeded ? ", over by \(ByteSize.format(r.overshoot))" : "")
                func testcase(_ body: String) -> String {
                    "    <testcase classname=\"budgets\" name=\"\(name)\">\n      \(body)\n    </testcase>"
                }
                if r.measured == nil {
                    skipped += 1
                    cases.append(testcase("<skipped message=\"needs --baseline\"/>"))
                } else if r.exceeded, let severity, severity >= failOn || warnings == .failure {
                    failures += 1
                    let type = RuleCatalogue.budgetExceededID
                    cases.append(testcase("<failure type=\"\(type)\" message=\"\(x(text))\">\(x(text))</failure>"))
                } else if r.exceeded, let severity, warnings == .skipped {
                    skipped += 1
                    cases.append(testcase("<skipped message=\"\(severity.rawValue): \(x(text))\"/>"))
                } else {
                    cases.append(testcase("<system-out>\(x(text))</system-out>"))
                }
            }
            totalTests += cases.count
            totalFailures += failures
            totalSkipped += skipped
            suites.append(
                "  <testsuite name=\"budgets\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" "
                    + "skipped=\"\(skipped)\">\n"
                    + cases.joined(separator: "\n") + "\n  </testsuite>")
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="sandbox-audit" tests="\(totalTests)" failures="\(totalFailures)" errors="0" \
            skipped="\(totalSkipped)">
            \(suites.joined(separator: "\n"))
            </testsuites>

            """
    }
}
