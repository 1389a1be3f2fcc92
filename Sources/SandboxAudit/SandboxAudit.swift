@_exported import SandboxAuditCore
@_exported import SandboxAuditMeasure
@_exported import SandboxAuditReport
@_exported import SandboxAuditRules
@_exported import SandboxAuditSimulate
@_exported import SandboxAuditSources
// The library's one import: `import SandboxAudit` gives every stage's public interface. The
// stages are separate targets (Package.swift, docs/ARCHITECTURE.md) so that an earlier one
// cannot use a later one.
@_exported import SandboxAuditSystem
