import CSystem

/// How the C allocator gives memory back, set once by the command line before any work.
package enum Allocator {
    /// glibc: blocks of 16 MiB or more mapped on their own and unmapped when freed; smaller ones
    /// from the heap, whose freed memory the next columns reuse. By default glibc moves that
    /// threshold up to the largest mapped block freed so far (up to 32 MiB) and then keeps twice
    /// as much free at the heap's top: a 1,000,000-file scan peaked at 149–153 MB that way and at
    /// 144 MB with 16 MiB. At 128 KiB every column is mapped afresh and given back: 139 MB, but
    /// 2.5 times the page faults (107,000 against 42,000) and about 0.1 s more. Nothing elsewhere
    /// (macOS's allocator returns large blocks itself).
    package static func returnLargeBlocksWhenFreed() {
        sandbox_audit_return_large_blocks()
    }
}
