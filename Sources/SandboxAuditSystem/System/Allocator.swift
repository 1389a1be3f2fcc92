import CSystem

/// How the C allocator keeps memory, set once by the command line before any work.
package enum Allocator {
    /// glibc: blocks of 16 MiB or more mapped on their own and unmapped when freed; smaller ones
    /// from the heap, whose freed memory the next columns reuse. By default glibc moves that
    /// threshold up to the largest mapped block freed so far (up to 32 MiB) and then keeps twice
    /// as much free at the heap's top: a 1,000,000-file scan peaked at 149–153 MB that way and at
    /// 144 MB with 16 MiB. At 128 KiB every column is mapped afresh and given back: 139 MB, but
    /// 2.5 times the page faults (107,000 against 42,000) and about 0.1 s more.
    ///
    /// And one heap (arena) for every thread: memory one thread frees is reused by the next
    /// column, whichever thread makes it. With an arena per thread the peak depended on which
    /// threads the work landed on: the same scan peaked at 144–172 MB from run to run (147–156 MB
    /// beside a busy core), against 142–145 MB with one.
    ///
    /// Nothing elsewhere (macOS's allocator returns large blocks itself).
    package static func configure() {
        sandbox_audit_configure_allocator()
    }
}
