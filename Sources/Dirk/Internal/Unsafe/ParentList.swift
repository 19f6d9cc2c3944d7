import CDirk

/// A component's directly registered parents, which readers walk without a lock: the first kept
/// inline, the others in an immutable linked list, newest first.
///
/// **Why reads are safe.** Parents are only ever added, never removed, while the list exists; the
/// list owns one reference to the first parent and one to the newest link, which owns the rest.
/// A writer, holding the owner's lock, stores the registered type before it publishes the parent
/// with a releasing store, and readers load with acquiring loads. A reader that holds the owner
/// may use the parents it finds for as long as it holds the owner.
///
/// A component seldom has more than one parent, so registering one allocates nothing and a lookup
/// compares one type; each further parent costs one small allocation.
@usableFromInline package struct ParentList<Element: AnyObject> {
    /// One registered parent and the parents registered before it.
    @usableFromInline package final class Link: @unchecked Sendable {
        // Immutable.
        @usableFromInline package let type: Any.Type
        @usableFromInline package let element: Element
        @usableFromInline package let next: Link?

        package init(type: Any.Type, element: Element, next: Link?) {
            self.type = type
            self.element = element
            self.next = next
        }
    }

    /// The owner's words: the first parent's registered type, the first parent, the newest link.
    @usableFromInline package let words: UnsafeMutablePointer<UInt>

    @inlinable package static var wordCount: Int { 3 }

    @inlinable package init(words: UnsafeMutablePointer<UInt>) {
        self.words = words
    }

    @inlinable var firstType: UnsafeMutablePointer<UInt> { words }
    @usableFromInline var first: UnsafeMutablePointer<UInt> { words + 1 }
    @inlinable var newest: UnsafeMutablePointer<UInt> { words + 2 }

    /// Sets the list empty; call it once, before anyone can read it.
    package func initialize() {
        words.initialize(repeating: 0, count: Self.wordCount)
    }

    /// Releases the parents; call it once, when the owner goes.
    package func destroy() {
        if let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(first)) {
            Unmanaged<Element>.fromOpaque(address).release()
        }
        if let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(newest)) {
            Unmanaged<Link>.fromOpaque(address).release()
        }
    }

    /// What the list holds, as a value that changes with every parent registered: the first parent
    /// and the newest link, which is never freed while the list exists, so that no later list can
    /// show the same value. Safe from any thread without a lock.
    package var contents: Contents {
        Contents(first: dirk_load_acquire(first), newest: dirk_load_acquire(newest))
    }

    /// What a list held at one moment (see `contents`); compared only.
    package struct Contents: Equatable {
        let first: UInt
        let newest: UInt
    }

    /// Whether no parent is registered.
    package var isEmpty: Bool { dirk_load_acquire(first) == 0 }

    /// The parent registered as `type`, as a `P`, or nil. Safe from any thread without a lock.
    ///
    /// `append(_:as:)` stores a parent under a class only if it is an instance of that class, so the
    /// cast holds.
    @inlinable
    package func parent<P: AnyObject>(registeredAs type: P.Type) -> P? {
        element(registeredAs: type).map { unsafeDowncast($0, to: P.self) }
    }

    /// The parent registered as `type`, or nil. Safe from any thread without a lock.
    ///
    /// The first parent is compared inline; the others, which few components have, in a call of
    /// their own, so that an accessor inlines only the comparison. (Speed only.)
    @inlinable @inline(__always)
    package func element(registeredAs type: Any.Type) -> Element? {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(first)) else { return nil }
        if dirk_load_relaxed(firstType) == UInt(bitPattern: ObjectIdentifier(type)) {
            return Unmanaged<Element>.fromOpaque(address).takeUnretainedValue()
        }
        return laterElement(registeredAs: type)
    }

    /// The parent registered as `type` after the first, or nil. Inlinable, so that an accessor in
    /// another module calls a copy specialized for its element type.
    @inlinable @inline(never)
    func laterElement(registeredAs type: Any.Type) -> Element? {
        var link = newestLink
        while let current = link {
            if ObjectIdentifier(current.type) == ObjectIdentifier(type) { return current.element }
            link = current.next
        }
        return nil
    }

    @inlinable var newestLink: Link? {
        UnsafeRawPointer(bitPattern: dirk_load_acquire(newest)).map {
            Unmanaged<Link>.fromOpaque($0).takeUnretainedValue()
        }
    }

    /// Calls `body` with every parent and the type it was registered as, in registration order,
    /// until `body` returns false.
    package func forEachParent(_ body: (Any.Type, Element) -> Bool) {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(first)) else { return }
        let type = RegisteredType.type(fromBits: dirk_load_relaxed(firstType))
        guard body(type, Unmanaged<Element>.fromOpaque(address).takeUnretainedValue()) else { return }
        var later: [Link] = []
        var link = newestLink
        while let current = link {
            later.append(current)
            link = current.next
        }
        for current in later.reversed() {
            guard body(current.type, current.element) else { return }
        }
    }

    /// The one parent and the type it was registered as, when exactly one is registered.
    package var onlyParent: (type: Any.Type, element: Element)? {
        guard let address = UnsafeRawPointer(bitPattern: dirk_load_acquire(first)),
            dirk_load_acquire(newest) == 0
        else { return nil }
        return (
            RegisteredType.type(fromBits: dirk_load_relaxed(firstType)),
            Unmanaged<Element>.fromOpaque(address).takeUnretainedValue()
        )
    }

    /// The parents, in registration order, with the type each was registered as.
    package var all: [(type: Any.Type, element: Element)] {
        var parents: [(type: Any.Type, element: Element)] = []
        forEachParent { type, element in
            parents.append((type, element))
            return true
        }
        return parents
    }

    /// Stops the program if the list is inconsistent: a later parent without a first, a type
    /// registered twice, or a parent that a lookup of its type does not find. Call it when no
    /// writer can run.
    package func checkInvariants() {
        if dirk_load_acquire(first) == 0 {
            precondition(dirk_load_acquire(newest) == 0, "Dirk internal error: later parents without a first")
        }
        let parents = all
        for (index, parent) in parents.enumerated() {
            precondition(
                !parents[..<index].contains { ObjectIdentifier($0.type) == ObjectIdentifier(parent.type) },
                "Dirk internal error: two parents registered as one type")
            precondition(
                element(registeredAs: parent.type) === parent.element,
                "Dirk internal error: a parent its type does not find")
        }
    }

    /// Adds `element`, registered as `type`, of which it must be an instance if `type` is a
    /// class. Call it while holding the owner's lock.
    package func append(_ element: Element, as type: Any.Type) {
        // What makes `parent(registeredAs:)`'s cast hold; callers check it first, with a message.
        precondition(
            !(type is AnyClass) || ClassHierarchy.isInstance(element, of: type),
            "Dirk internal error: a parent registered as another class")
        if dirk_load_relaxed(first) == 0 {
            dirk_store_relaxed(firstType, UInt(bitPattern: ObjectIdentifier(type)))
            dirk_store_release(first, UInt(bitPattern: Unmanaged.passRetained(element).toOpaque()))
            return
        }
        // The new link takes over the list's reference to the previous one.
        let previous = UnsafeRawPointer(bitPattern: dirk_load_relaxed(newest)).map {
            Unmanaged<Link>.fromOpaque($0).takeRetainedValue()
        }
        let link = Link(type: type, element: element, next: previous)
        dirk_store_release(newest, UInt(bitPattern: Unmanaged.passRetained(link).toOpaque()))
    }
}
