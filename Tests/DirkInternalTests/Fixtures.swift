import Dirk
import Dispatch
import Foundation

/// A value that tables, lists and cells hold: a class, so that tests can tell instances apart and
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
/// based cells and locks, and its lock-free tables over raw words, which synchronize themselves (that
/// is what the tests that use this check).
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

/// The step of a provider named `function` of `Item`, at the caller's position.
func makeFrame(
    _ function: StaticString = #function, file: StaticString = #fileID, line: UInt = #line,
    column: UInt = #column, owner: UInt = 1
) -> Frame {
    Frame(
        .provider, strategy: .single, owner: owner, component: 1,
        site: ProviderSite(file: file, line: line, column: column, function: function), type: Item.self,
        subject: Item.self, componentType: Item.self)
}

/// Runs `body` with each index in `0..<count`, each on a new thread of its own, all at once, and
/// returns when every one has returned. Unlike `DispatchQueue.concurrentPerform`, whose threads are
/// as many as the processors, every body runs even when the others block.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread {
            body(index)
            finished.leave()
        }.start()
    }
    finished.wait()
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
