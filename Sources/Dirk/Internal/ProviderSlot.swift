/// Everything a module keeps for one provider: its name, and the cell or cells it caches in.
///
/// A module makes the slot the first time the provider runs and keeps it for its lifetime, so a
/// reader that found a slot may keep using it without a lock.
final class ProviderSlot: @unchecked Sendable {
    /// How the provider caches, which decides what the slot holds.
    enum Caching {
        case none
        case one(OnceCell)
        case perKey(OnceCell.Retention)
    }

    /// `Module.provider()`, as messages and resolution paths show it.
    let name: String
    let site: CallSite
    /// The component whose module made the slot, and its type.
    let componentID: ObjectIdentifier
    let componentType: Component.Type
    let caching: Caching
    // Guarded by the lock of the component that owns the module.
    private var cellsByKey: [AnyHashable: OnceCell] = [:]

    init(name: String, site: CallSite, component: Component, caching: Caching) {
        self.name = name
        self.site = site
        self.componentID = ObjectIdentifier(component)
        self.componentType = type(of: component)
        self.caching = caching
    }

    /// The cell for `key`, made on first use. Call it while holding the component's lock.
    func cell(for key: AnyHashable) -> OnceCell {
        if let cell = cellsByKey[key] { return cell }
        guard case .perKey(let retention) = caching else {
            preconditionFailure("Dirk: \(name) does not cache per key")
        }
        let cell = OnceCell(retention: retention)
        cellsByKey[key] = cell
        return cell
    }

    /// Drops everything the slot cached; returns the values for the caller to release outside the
    /// lock. Call it while holding the component's lock.
    func reset() -> [AnyObject] {
        switch caching {
        case .none:
            return []
        case .one(let cell):
            return cell.reset().map { [$0] } ?? []
        case .perKey:
            let cells = cellsByKey.values
            cellsByKey = [:]
            return cells.compactMap { $0.reset() }
        }
    }
}
