import CSystem

/// How the C allocator gives memory back, set once by the command line before any work.
package enum Allocator {
    /// glibc: every block of 128 KiB or more mapped on its own and unmapped when freed. By
    /// default glibc raises that threshold to the largest block freed so far, so once a walk's
    /// columns are put in order and the unordered ones freed, blocks of their size come from
    /// the heap and stay with the process after they are freed (a 1,000,000-file scan peaked
    /// 8 MB higher). Nothing elsewhere (macOS's allocator gives large blocks back itself).
    package static func returnLargeBlocksWhenFreed() {
        sandbox_audit_return_large_blocks()
    }
}
