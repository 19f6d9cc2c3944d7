import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

/// An instance whose identity tests compare; numbered in creation order per counter.
///
/// Its links are written only in a provider's `configure:`, before Dirk hands the instance to
/// anyone, or by a test on one thread: the build happens-before every read through the provider.
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
final class Other: Sendable {
    init() {}
}

/// A component with one module, the common case.
final class TestComponent: Component, @unchecked Sendable {
    let counter = Counter()
    var things: ThingModule { module() }
}

class ThingModule: Module<TestComponent> {
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

// MARK: Waiting for what insight shows

/// Waits for states of builds that insight shows, to order threads and tasks: the order a sleep
/// would only hope for. Run them under a watchdog, which ends a wait that never comes.
extension Component {
    /// The node of the provider `name` in this component's graph, as insight shows it now.
    func node(_ name: String) -> DependencyGraph.Node? {
        dependencyGraph().nodes.first { $0.name == name }
    }

    /// Returns once insight shows the provider `name` as `isReached` wants it.
    func waitUntil(_ name: String, shows isReached: (DependencyGraph.Node) -> Bool) {
        while !(node(name).map(isReached) ?? false) { usleep(1_000) }
    }

    /// Returns once `count` callers wait for `provider`'s build.
    func waitUntil(_ count: Int, areWaitingFor provider: String) {
        waitUntil(provider) { $0.waitingCallers == count }
    }

    /// Returns once another caller waits for the build under way of the provider `name`.
    func waitForWaiter(on name: String) {
        waitUntil(name) { $0.waitingCallers > 0 }
    }

    /// Returns once a build of the provider `name` is under way (or built and held by its
    /// resolution).
    func waitForBuild(of name: String) {
        waitUntil(name) { $0.builds > 0 }
    }

    /// Returns once `count` callers wait for `provider`'s build, and, if `building`, once it is
    /// being built; stops early if its task is cancelled, as the async watchdog does when the time
    /// is up.
    func waitUntilAsync(_ count: Int, areWaitingFor provider: String, building: Bool = false) async {
        while !Task.isCancelled {
            let node = node(provider)
            if node?.waitingCallers == count && (!building || node?.builds == 1) { return }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
    }
}
