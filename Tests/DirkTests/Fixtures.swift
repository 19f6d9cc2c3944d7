import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

/// An instance whose identity tests compare; numbered in creation order per counter.
final class Thing: @unchecked Sendable {
    let number: Int
    var link: Thing?
    weak var back: Thing?
    /// The other half of a pair that refers to each other; weak, so that pairs of cached
    /// instances form no retain cycle (the component keeps them).
    weak var partner: Thing?

    init(_ counter: Counter? = nil) {
        number = counter?.increment() ?? 0
    }

    init(number: Int) {
        self.number = number
    }
}

/// A second type, for providers that must not share a slot with `Thing`'s.
final class Other: @unchecked Sendable {
    init() {}
}

/// A component with one module, the common case.
final class TestComponent: Component, @unchecked Sendable {
    let counter = Counter()
    var things: ThingModule { module() }
}

class ThingModule: Module<TestComponent>, @unchecked Sendable {
    func single() -> Thing { single { c in Thing(c.counter) } }
    func transient() -> Thing { transient { c in Thing(c.counter) } }
    func weak() -> Thing { weak { c in Thing(c.counter) } }
    func scoped() -> Thing { scoped { c in Thing(c.counter) } }
    func keyed(_ key: String) -> Thing { single(key: key) { c in Thing(c.counter) } }
}

/// The strategies, for tests whose behaviour they share.
enum Strategy: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case single, transient, weak, scoped, keyed

    var testDescription: String { rawValue }

    /// Resolves `component`'s provider of this strategy.
    func resolve(_ component: TestComponent) -> Thing {
        switch self {
        case .single: component.things.single()
        case .transient: component.things.transient()
        case .weak: component.things.weak()
        case .scoped: component.things.scoped()
        case .keyed: component.things.keyed("key")
        }
    }
}

/// Holds a factory open until the test lets it finish.
final class Gate: Sendable {
    /// Signalled when a factory reaches the gate.
    let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// Called by the factory: announces it and waits until the gate opens.
    func pass() {
        entered.signal()
        released.wait()
    }

    /// Lets one waiting factory through.
    func open() {
        released.signal()
    }
}
