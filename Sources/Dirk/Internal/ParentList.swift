import Synchronization

/// A component's directly registered parents: an immutable linked list, newest first, that readers
/// walk without a lock.
///
/// A component seldom has more than one or two parents, so a list costs one small allocation per
/// parent and a lookup compares one or two types.
@usableFromInline
struct ParentList: ~Copyable {
    /// One registered parent and the parents registered before it.
    @usableFromInline
    final class Link: Sendable {
        /// The type the parent was registered as.
        @usableFromInline let type: ObjectIdentifier
        let registeredType: Component.Type
        @usableFromInline let component: Component
        @usableFromInline let next: Link?

        init(type: Component.Type, component: Component, next: Link?) {
            self.type = ObjectIdentifier(type)
            registeredType = type
            self.component = component
            self.next = next
        }
    }

    // Read without a lock; written only while holding the component's lock. Holds one reference
    // to the newest link, which holds the rest.
    @usableFromInline
    let newest = Atomic<Unmanaged<Link>?>(nil)

    init() {}

    deinit {
        newest.load(ordering: .acquiring)?.release()
    }

    /// The parent registered as `type`, unretained, or nil. Safe from any thread without a lock.
    @inlinable @inline(__always)
    func parent(registeredAs type: Any.Type) -> Unmanaged<Component>? {
        guard let newest = newest.load(ordering: .acquiring) else { return nil }
        return newest._withUnsafeGuaranteedRef { newest in
            var link: Link? = newest
            while let current = link {
                if current.type == ObjectIdentifier(type) { return .passUnretained(current.component) }
                link = current.next
            }
            return nil
        }
    }

    /// The parents, in the order they were registered, with the type each was registered as.
    var all: [(type: Component.Type, component: Component)] {
        var parents: [(type: Component.Type, component: Component)] = []
        var link = newest.load(ordering: .acquiring)?.takeUnretainedValue()
        while let current = link {
            parents.append((current.registeredType, current.component))
            link = current.next
        }
        return parents.reversed()
    }

    /// Whether the list is empty.
    var isEmpty: Bool { newest.load(ordering: .acquiring) == nil }

    /// Adds `component`, registered as `type`. Call it while holding the component's lock.
    func append(_ component: Component, as type: Component.Type) {
        let previous = newest.load(ordering: .acquiring)
        // The new link takes over the list's reference to the previous one.
        let link = Link(type: type, component: component, next: previous?.takeRetainedValue())
        newest.store(.passRetained(link), ordering: .releasing)
    }
}
