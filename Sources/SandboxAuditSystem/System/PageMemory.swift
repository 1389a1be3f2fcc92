#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory mapped from the system in whole pages (mmap(2)) and unmapped when freed (munmap(2)):
/// given back to the system at once, where memory freed through the allocator may stay with
/// the process until something of a similar size reuses it. For large buffers freed one by
/// one while other memory is being filled (`WalkEntries`' chunks).
package enum PageMemory {
    /// Room for `capacity` values of `T`, uninitialised. Stops the process when the system has
    /// no memory to give, as any other allocation does.
    package static func allocate<T>(_ type: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
        let bytes = max(capacity * MemoryLayout<T>.stride, 1)
        #if canImport(Darwin)
        let flags = MAP_PRIVATE | MAP_ANON
        #else
        let flags = MAP_PRIVATE | MAP_ANONYMOUS
        #endif
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, flags, -1, 0), p != MAP_FAILED else {
            fatalError("out of memory: cannot map \(bytes) bytes")
        }
        return p.bindMemory(to: T.self, capacity: capacity)
    }

    /// Gives back what `allocate` mapped for `capacity` values (already deinitialised).
    package static func deallocate<T>(_ pointer: UnsafeMutablePointer<T>, capacity: Int) {
        munmap(UnsafeMutableRawPointer(pointer), max(capacity * MemoryLayout<T>.stride, 1))
    }
}
