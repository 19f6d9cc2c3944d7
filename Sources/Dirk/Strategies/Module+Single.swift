import Synchronization

extension Module {
    /// Provides one instance per component, built on the first call and returned by every later
    /// one.
    ///
    /// ```swift
    /// func store() -> Store { single { Store() } }
    /// ```
    ///
    /// **Lifetime:** until the component is released or `reset()`.
    ///
    /// **Thread safety:** when many threads make the first call at once, one builds and the others
    /// wait for that one instance. A cached instance is returned without taking a lock.
    ///
    /// - Parameter factory: Builds the instance. If it throws, nothing is cached and the error
    ///   reaches the caller; the next call tries again.
    /// - Returns: The component's instance.
    @inlinable @inline(__always)
    public func single<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T
    ) rethrows -> T {
        try cachedSingle(
            file: file, line: line, column: column, function: function,
            make: { _ in try factory() }, configures: false, configure: { _, _ in })
    }

    /// Provides one instance per component, built by a factory that receives the component.
    ///
    /// ```swift
    /// func repository() -> Repository { single { c in Repository(store: c.data.store()) } }
    /// ```
    ///
    /// - Parameter factory: Builds the instance from the component's other providers.
    /// - Returns: The component's instance.
    @inlinable @inline(__always)
    public func single<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T
    ) rethrows -> T {
        try cachedSingle(
            file: file, line: line, column: column, function: function,
            make: factory, configures: false, configure: { _, _ in })
    }

    /// Provides one instance per component and configures it after it is cached.
    ///
    /// `configure` runs once per new instance, after the instance is cached and before the
    /// outermost provider call returns. Instances that refer to each other set those references
    /// here (setter injection): while `configure` runs, this thread already gets the cached
    /// instance from the provider, so a cycle through `configure` works.
    ///
    /// ```swift
    /// func parent() -> Parent {
    ///     single({ Parent() }, configure: { parent, c in parent.child = c.family.child() })
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - factory: Builds the instance; it must not need the instances `configure` sets.
    ///   - configure: Completes the instance. If it throws, nothing is cached.
    /// - Returns: The component's instance.
    @inlinable @inline(__always)
    public func single<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: (C) throws -> T,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        try cachedSingle(
            file: file, line: line, column: column, function: function,
            make: factory, configures: true, configure: configure)
    }

    /// Provides one instance per component, built without the component and configured after it
    /// is cached. See `single(_:configure:)`.
    ///
    /// - Parameters:
    ///   - factory: Builds the instance.
    ///   - configure: Completes the instance. If it throws, nothing is cached.
    /// - Returns: The component's instance.
    @inlinable @inline(__always)
    public func single<T>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        _ factory: () throws -> T,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        try cachedSingle(
            file: file, line: line, column: column, function: function,
            make: { _ in try factory() }, configures: true, configure: configure)
    }

    /// Provides one instance per component per key, for providers that take arguments.
    ///
    /// ```swift
    /// func user(id: String) -> User { single(key: id) { User(id: id) } }
    /// ```
    ///
    /// **Lifetime:** each key's instance lives until the component is released or `reset()`.
    /// Keys are kept until the component is released; `reset()` empties their instances.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached.
    /// - Returns: The component's instance for `key`.
    public func single<T, Key: Hashable>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        key: Key,
        _ factory: () throws -> T
    ) rethrows -> T {
        try keyedSingle(
            CallSite(file: file, line: line, column: column, function: function), key: key,
            make: { _ in try factory() })
    }

    /// Provides one instance per component per key, built by a factory that receives the
    /// component. See `single(key:_:)`.
    ///
    /// - Parameters:
    ///   - key: Distinguishes the instances of this provider.
    ///   - factory: Builds the instance for `key`. If it throws, nothing is cached.
    /// - Returns: The component's instance for `key`.
    public func single<T, Key: Hashable>(
        file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: StaticString = #function,
        key: Key,
        _ factory: (C) throws -> T
    ) rethrows -> T {
        try keyedSingle(
            CallSite(file: file, line: line, column: column, function: function), key: key,
            make: factory)
    }
}

extension Module {
    /// The cached instance of the `single` at `site`, read without a lock, or the one it builds.
    ///
    /// Only a call and a test are inlined into the provider, so that the provider stays small
    /// enough to be inlined where it is called. For a class instance that call releases nothing,
    /// so the caller's optimizer can also drop its retain and release of this module on a hit.
    @inlinable @inline(__always)
    func cachedSingle<T>(
        file: StaticString, line: UInt, column: UInt, function: StaticString,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        let key = LookupKey(file: file, line: line, column: column, type: T.self)
        if T.self is AnyClass {
            if let object = cachedObject(at: key) {
                // Tells the optimizer that this is the path to inline for.
                _onFastPath()
                return unsafeBitCast(object, to: T.self)
            }
        } else if let value = cachedHeldValue(at: key, as: T.self) {
            return value
        }
        return try uncachedSingle(
            CallSite(file: file, line: line, column: column, function: function), make: make,
            configures: configures, configure: configure)
    }

    /// The value a `single` that returns a value (a struct, an enum, an existential) cached, read
    /// without a lock, or nil.
    @inlinable @inline(never)
    func cachedHeldValue<T>(at key: LookupKey, as type: T.Type) -> T? {
        cachedObject(at: key).map { unsafeDowncast($0, to: Holder<T>.self).value }
    }

    /// A `single` whose value is not cached, or is not read without a lock just now.
    @inlinable @inline(never)
    func uncachedSingle<T>(
        _ site: CallSite,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        if attention.load(ordering: .relaxed) != 0 {
            return try attentiveSingle(site, make: make, configures: configures, configure: configure)
        }
        let slot = slot(at: site, returning: T.self, caching: .one(.strong))
        return try resolveSingle(
            slot, frame: Frame(provider: self, at: site, returning: T.self), make: make,
            configures: configures, configure: configure)
    }

    /// A `single` while someone asked for fresh instances or observes this module.
    @usableFromInline
    func attentiveSingle<T>(
        _ site: CallSite,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        if let fresh = try freshInstance(site, make: make, configures: configures, configure: configure) {
            return fresh
        }
        let slot = slot(at: site, returning: T.self, caching: .one(.strong))
        let cell = slot.takeUnretainedValue().cell.unsafelyUnwrapped
        let isObserved = observers.load(ordering: .relaxed) != 0
        if let value = cell.cachedValue(as: T.self) {
            if isObserved { observe(site, returning: T.self, strategy: "single", isNew: false) }
            return value
        }
        if isObserved { observe(site, returning: T.self, strategy: "single", cell: cell) }
        return try resolveSingle(
            slot, frame: Frame(provider: self, at: site, returning: T.self), make: make,
            configures: configures, configure: configure)
    }

    /// Builds, or waits for, the instance of a `single`'s cell.
    @usableFromInline
    func resolveSingle<T>(
        _ slot: Unmanaged<ProviderSlot>,
        frame: Frame,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        let slot = slot.takeUnretainedValue()
        return try resolveStrong(
            in: slot.cell.unsafelyUnwrapped, frame: frame, make: make, configures: configures,
            configure: configure)
    }

    func keyedSingle<T, Key: Hashable>(
        _ site: CallSite, key: Key, make: (C) throws -> T
    ) rethrows -> T {
        if let fresh = try freshInstance(site, make: make, configures: false, configure: { _, _ in }) {
            return fresh
        }
        let slot = slot(at: site, returning: T.self, caching: .perKey).takeUnretainedValue()
        let cell = slot.cell(for: AnyHashable(key))
        if observers.load(ordering: .relaxed) != 0 {
            observe(site, returning: T.self, strategy: "single(key:)", cell: cell)
        }
        if let value = cell.cachedValue(as: T.self) { return value }
        return try resolveStrong(
            in: cell, frame: Frame(provider: self, at: site, returning: T.self), make: make,
            configures: false, configure: { _, _ in })
    }

    /// Builds, or waits for, the value of a strong cell. Class instances are cached as
    /// themselves, other values in a `Holder`.
    private func resolveStrong<T>(
        in cell: OnceCell,
        frame: Frame,
        make: (C) throws -> T,
        configures: Bool,
        configure: (T, C) throws -> Void
    ) rethrows -> T {
        let component = liveComponent(provider: frame.name, site: frame.site)
        let isInstance = cell.isInstance
        let object = try cell.resolve(
            frame: frame, in: component,
            make: { isInstance ? try make(component) as AnyObject : Holder(try make(component)) },
            configures: configures,
            configure: { try configure(Self.value(of: $0, isInstance: isInstance), component) })
        return Self.value(of: object, isInstance: isInstance)
    }

    private static func value<T>(of object: AnyObject, isInstance: Bool) -> T {
        isInstance ? unsafeBitCast(object, to: T.self) : unsafeDowncast(object, to: Holder<T>.self).value
    }
}
