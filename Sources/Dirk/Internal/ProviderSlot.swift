/// Everything a module keeps for one provider: where it is, whom it belongs to, and the cell or
/// cells it caches in.
///
/// A module makes the slot the first time the provider runs and keeps it for its lifetime, so a
/// reader that found a slot may keep using it without a lock.
@usableFromInline
final class ProviderSlot: @unchecked Sendable {
    /// How the provider caches, which decides what the slot holds.
    @usableFromInline
    enum Caching {
        case none
        case one(OnceCell.Retention)
        case perKey
        case async
    }

    let site: CallSite
    let moduleType: AnyObject.Type
    /// The component whose module made the slot, and its type.
    let componentID: ObjectIdentifier
    let componentType: Component.Type
    /// Whether the provider's instances are class instances, cached as themselves.
    let isInstance: Bool
    /// Whether the provider caches one instance per key.
    let isKeyed: Bool
    let readers: ReadGuard?
    /// The cell of a provider that caches one instance; nil otherwise. Immutable.
    let cell: OnceCell?
    /// The cell of an `async` single; nil otherwise. Immutable.
    let asyncCell: AsyncCell?
    /// `cell`, for readers that must not touch its reference count.
    @usableFromInline
    let unretainedCell: Unmanaged<OnceCell>?
    /// The cells of a `single(key:)` provider. Guarded by its own lock, which is held only while
    /// the key is hashed and compared, so that user code never runs under the component's lock.
    private let cellsByKey = Locked<[AnyHashable: OnceCell]>.make([:])

    init(
        site: CallSite, module: AnyObject.Type, component: Component, caching: Caching,
        returning type: Any.Type, readers: ReadGuard?
    ) {
        self.site = site
        self.moduleType = module
        self.componentID = ObjectIdentifier(component)
        self.componentType = Swift.type(of: component)
        self.isInstance = type is AnyClass
        if case .perKey = caching { isKeyed = true } else { isKeyed = false }
        self.readers = readers
        if case .one(let retention) = caching {
            cell = OnceCell(retention: retention, isInstance: isInstance, readers: readers)
        } else {
            cell = nil
        }
        unretainedCell = cell.map { .passUnretained($0) }
        if case .async = caching { asyncCell = AsyncCell() } else { asyncCell = nil }
    }

    /// `Module.provider()`, as messages and resolution paths show it.
    var name: String { "\(moduleType).\(site.function)" }

    /// Whether any key's cell holds a value now. Call it while holding the component's lock.
    var hasKeyedValues: Bool {
        guard isKeyed else { return false }
        return cellsByKey.withLock { $0.values.contains { $0.hasValue } }
    }

    /// The cell for `key`, made on first use.
    func cell(for key: AnyHashable) -> OnceCell {
        cellsByKey.withLock { cells in
            if let cell = cells[key] { return cell }
            let cell = OnceCell(retention: .strong, isInstance: isInstance, readers: readers)
            cells[key] = cell
            return cell
        }
    }

    /// Drops everything the slot cached and adds it to `dropped`, for the caller to release
    /// outside the lock. Call it while holding the component's lock.
    ///
    /// Keyed cells are emptied in place and keep their keys, so that no user `Hashable` code runs
    /// here and a build in flight for a key still lands in the cell that later calls use.
    func reset(into dropped: inout [Any]) {
        if let cell {
            if let value = cell.reset() { dropped.append(value) }
            return
        }
        if let asyncCell {
            if let value = asyncCell.reset() { dropped.append(value) }
            return
        }
        guard isKeyed else { return }
        for cell in cellsByKey.withLock({ Array($0.values) }) {
            if let value = cell.reset() { dropped.append(value) }
        }
    }
}
