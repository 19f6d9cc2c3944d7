import Synchronization

/// A component's directly registered parents, which readers walk without a lock: the first kept
/// inline, the others in an immutable linked list, newest first.
///
/// A component seldom has more than one parent, so registering one allocates nothing and a lookup
/// compares one or two types; each further parent costs one small allocation.
@usableFromInline
struct ParentList: ~Copyable {
    /// One registered parent and the parents registered before it.
    final class Link: Sendable {
        /// The type the parent was registered as.
        let type: Component.Type
        let component: Component
        let next: Link?

        init(type: Component.Type, component: Component, next: Link?) {
            self.type = type
            self.component = component
            self.next = next
        }
    }

    // Read without a lock; written only while holding the component's lock. `firstType` is written
    // before `first` is published and never changes after. Each holds one reference: `first` to
    // the first parent, `newest` to the newest link, which holds the rest.
    @usableFromInline
    let first = Atomic<Unmanaged<Component>?>(nil)
    @usableFromInline
    let firstType = Atomic<UnsafeRawPointer?>(nil)
    let newest = Atomic<Unmanaged<Link>?>(nil)

    init() {}

    deinit {
        first.load(ordering: .acquiring)?.release()
        newest.load(ordering: .acquiring)?.release()
    }

    /// The parent registered as `type`, unretained, or nil. Safe from any thread without a lock.
    @inlinable @inline(__always)
    func parent(registeredAs type: Any.Type) -> Unmanaged<Component>? {
        guard let first = first.load(ordering: .acquiring) else { return nil }
        if firstType.load(ordering: .relaxed) == unsafeBitCast(type, to: UnsafeRawPointer.self) {
            return first
        }
        return laterParent(registeredAs: ObjectIdentifier(type))
    }

    /// The parent registered as `type` after the first, or nil.
    @usableFromInline
    func laterParent(registeredAs type: ObjectIdentifier) -> Unmanaged<Component>? {
        var link = newest.load(ordering: .acquiring)?.takeUnretainedValue()
        while let current = link {
            if ObjectIdentifier(current.type) == type { return .passUnretained(current.component) }
            link = current.next
        }
        return nil
    }

    /// The parents, in the order they were registered, with the type each was registered as.
    ///
    /// Sequentially consistent with `append(_:as:)`: of two threads that each register a parent
    /// and then walk the other's ancestors, at least one sees the other's registration, which is
    /// how two components made each other's parent at once find the cycle.
    var all: [(type: Component.Type, component: Component)] {
        guard let first = first.load(ordering: .sequentiallyConsistent) else { return [] }
        var parents: [(type: Component.Type, component: Component)] = []
        var link = newest.load(ordering: .sequentiallyConsistent)?.takeUnretainedValue()
        while let current = link {
            parents.append((current.type, current.component))
            link = current.next
        }
        let firstType = unsafeBitCast(firstType.load(ordering: .relaxed), to: Component.Type.self)
        return [(firstType, first.takeUnretainedValue())] + parents.reversed()
    }

    /// Whether no parent is registered: a cheaper answer than an empty `all`, sequentially
    /// consistent like it.
    var isEmpty: Bool { first.load(ordering: .sequentiallyConsistent) == nil }

    /// Adds `component`, registered as `type`. Call it while holding the component's lock.
    func append(_ component: Component, as type: Component.Type) {
        if first.load(ordering: .relaxed) == nil {
            firstType.store(unsafeBitCast(type, to: UnsafeRawPointer.self), ordering: .relaxed)
            first.store(.passRetained(component), ordering: .sequentiallyConsistent)
            return
        }
        let previous = newest.load(ordering: .acquiring)
        // The new link takes over the list's reference to the previous one.
        let link = Link(type: type, component: component, next: previous?.takeRetainedValue())
        newest.store(.passRetained(link), ordering: .sequentiallyConsistent)
    }
}
