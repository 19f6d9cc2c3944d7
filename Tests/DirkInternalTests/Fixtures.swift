import Dirk
import Foundation

/// A value that tables, directories and cells hold: a class, so that tests can tell instances apart and
/// see them released through weak references.
final class Item: Sendable {
    let number: Int

    init(_ number: Int = 0) {
        self.number = number
    }
}

/// A weak reference, to see that a structure released what it held.
struct WeakItem {
    weak var item: Item?
}

/// An error whose identity tells whether every caller got the very same error.
final class TestFailure: Error {
    let number: Int

    init(_ number: Int) {
        self.number = number
    }
}

/// A value that crosses threads although its type cannot say it is `Sendable`: Dirk's `ManagedBuffer`
/// based cells and locks, and its lock-free directory over raw words, which synchronize themselves
/// (that is what the tests that use this check).
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// The identities of `objects`, in order, to compare arrays of references.
func identities(_ objects: AnyObject...) -> [ObjectIdentifier] {
    identities(objects)
}

func identities(_ objects: [AnyObject]) -> [ObjectIdentifier] {
    objects.map(ObjectIdentifier.init)
}

/// The step of a `strategy` provider named `function` of `Item`, at the caller's position.
func makeStep(
    _ function: StaticString = #function, file: StaticString = #fileID, line: UInt = #line,
    column: UInt = #column, owner: UInt = 1, strategy: ProviderStrategy = .single
) -> Step {
    Step(
        .provider, strategy: strategy, owner: owner, component: 1,
        site: ProviderSite(file: file, line: line, column: column, function: function), type: Item.self,
        subject: Item.self, componentType: Item.self)
}

/// Sleeps a little, letting other threads run, while `condition` is false. A way to wait for other
/// threads to reach a state, never a timing assertion: run it under `withWatchdog`.
func waitUntil(_ condition: () -> Bool) {
    while !condition() { usleep(100) }
}

/// Gives the processor to another thread, so that threads interleave more.
func letOthersRun() {
    sched_yield()
}

// MARK: Types made at run time

/// `count` distinct types (up to 1,024), each a distinct instantiation of a generic type, for tables
/// keyed by types.
func distinctTypes(_ count: Int) -> [Any.Type] {
    precondition(count <= 1024, "distinctTypes makes at most 1,024 types")
    var levels: [Any.Type] = [Item.self]
    while levels.count < 32 { levels.append(nested(in: levels[levels.count - 1])) }
    var types: [Any.Type] = []
    for first in levels {
        for second in levels where types.count < count { types.append(pair(first, second)) }
    }
    return types
}

private struct Level<Previous> {}
private struct Pair<First, Second> {}

private func nested(in type: Any.Type) -> Any.Type {
    func open<T>(_: T.Type) -> Any.Type { Level<T>.self }
    return open(type)
}

private func pair(_ first: Any.Type, _ second: Any.Type) -> Any.Type {
    func open<First>(_: First.Type) -> Any.Type {
        func open<Second>(_: Second.Type) -> Any.Type { Pair<First, Second>.self }
        return open(second)
    }
    return open(first)
}

/// The key of a provider declared in this file, for keys that differ by file.
func providerKeyInFixtures(line: UInt, column: UInt, function: StaticString = #function) -> ProviderKey {
    ProviderKey(file: #fileID, line: line, column: column, function: function, type: Item.self)
}

extension ConfigurationOutcome {
    /// The builds a configured instance depends on; nil for a failed build.
    var dependencies: [BuildRecord]? {
        if case .configured(let dependencies) = self { return dependencies }
        return nil
    }

    /// How the build failed; nil for a configured one.
    var failure: BuildFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}

extension Optional where Wrapped == AnyObject {
    /// The number of the `Item` this holds, if it holds one.
    var number: Int? { (self as? Item)?.number }
}

// MARK: Hosts

/// A host of cells for tests of the drivers: a `CellTable` under a lock, which makes a cell on a
/// provider's first claim, as a component's table does, unless it `makesCells` not: then a claim
/// where it holds no cell answers `.retired`, as for a key that `reset` dropped.
final class TableHost: CellHost {
    private let table = Dirk.Locked<CellTable>.make(CellTable())
    private let makesCells: Bool

    init(makesCells: Bool = true) {
        self.makesCells = makesCells
    }

    /// The cell at `key`, as the drivers resolve it.
    func reference(_ key: CellKey) -> CellReference {
        CellReference(host: self, key: key)
    }

    /// Runs `body` with the table, under its lock.
    func withTable<Result>(_ body: (inout CellTable) -> Result) -> Result {
        table.withLock { body(&$0) }
    }

    func claim(_ key: CellKey, by agent: BuildAgent, step: Step) -> OnceStateMachine.Claim {
        table.withLock { $0.claim(key, by: agent, step: step, makes: makesCells) }
    }

    func withCell(_ key: CellKey, _ body: (inout OnceStateMachine, inout UInt64) -> Void) -> Bool {
        table.withLock { $0.withCell(key, body) }
    }
}

/// The key of the cell of a provider declared in this file, owned by `owner`: keys differ by
/// `line`, and by `serial` for a key's cell.
func cellKey(owner: AnyObject, line: UInt = 1, serial: UInt64 = 0) -> CellKey {
    CellKey(
        owner: ObjectIdentifier(owner), provider: providerKeyInFixtures(line: line, column: 1),
        keyNumber: serial)
}

extension CellHost {
    /// How many agents wait for the build under way at `key`; zero when none is, or there is no cell.
    func waiterCount(at key: CellKey) -> Int {
        CellReference(host: self, key: key).withMachine { machine, _ in machine.waiterCount } ?? 0
    }

    /// Whether a build is under way at `key`.
    func isBuilding(at key: CellKey) -> Bool {
        CellReference(host: self, key: key).withMachine { machine, _ in machine.isBuilding } ?? false
    }

    /// The ready value at `key`, if any, read under the lock.
    func readyValue(at key: CellKey) -> AnyObject? {
        CellReference(host: self, key: key).withMachine { machine, _ in machine.readyValue } ?? nil
    }

    /// Empties the cell at `key` if it is ready, and returns what it held.
    func reset(at key: CellKey) -> AnyObject? {
        CellReference(host: self, key: key).withMachine { machine, _ in machine.reset() } ?? nil
    }
}

extension CellReference {
    /// How many agents wait for the build under way; zero when none is.
    var waiterCount: Int { host.waiterCount(at: key) }

    /// Whether a build is under way.
    var isBuilding: Bool { host.isBuilding(at: key) }

    /// The ready value, if any.
    var readyValue: AnyObject? { host.readyValue(at: key) }

    /// Whether the cell holds a value now.
    var hasValue: Bool { readyValue != nil }

    /// Empties the cell if it is ready, and returns what it held.
    func reset() -> AnyObject? { host.reset(at: key) }

    /// The value for the calling thread, built by `build` if needed.
    func resolve<Failure: Error>(
        step: Step, build: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try resolveUnlessRetired(in: .current, step: step, build: build)!
    }

    /// The value for the calling thread, built by `build` and completed by `configure` if needed.
    func resolve<Failure: Error>(
        step: Step, build: () throws(Failure) -> Value, configure: @escaping (Value) throws(Failure) -> Void
    ) throws(Failure) -> Value {
        try resolveUnlessRetired(in: .current, step: step, build: build, configure: { try configure($0) })!
    }
}
