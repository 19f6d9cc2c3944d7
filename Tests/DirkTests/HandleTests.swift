import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("Lazy and provider handles")
struct HandleTests {
    @Test("a Lazy resolves on first use, once, and returns the same instance after")
    func lazyResolvesOnce() {
        let component = TestComponent()
        let handle = component.lazy { $0.things.transient() }
        #expect(component.counter.count == 0)
        let first = handle.value
        #expect(handle.value === first)
        #expect(component.counter.count == 1)
    }

    @Test("a Lazy read by many threads at once resolves exactly once")
    func lazyResolvesOnceAcrossThreads() {
        let component = TestComponent()
        let readers = 16
        // The first reader's resolution lets the others start reading, and ends only once they
        // all have: every other read begins while the resolution is under way.
        let (building, reading, allReading) = (
            DispatchSemaphore(value: 0), Counter(), DispatchSemaphore(value: 0)
        )
        let handle = component.lazy { c in
            for _ in 1..<readers { building.signal() }
            allReading.wait()
            allReading.signal()  // Open for good, for a second resolution to fail on.
            return c.things.transient()
        }
        let seen = LockedBox<Set<ObjectIdentifier>>([])
        withWatchdog {
            onThreads(readers) { index in
                if index > 0 {
                    building.wait()
                    if reading.increment() == readers - 1 { allReading.signal() }
                }
                let thing = handle.value
                seen.withLock { _ = $0.insert(ObjectIdentifier(thing)) }
            }
        }
        #expect(seen.withLock { $0.count } == 1)
        #expect(component.counter.count == 1, "one transient for every reader")
    }

    @Test("a Provider resolves anew on every call, with its provider's strategy")
    func providerResolvesEachCall() {
        let component = TestComponent()
        let transients = component.provider { $0.things.transient() }
        let singles = component.provider { $0.things.single() }
        #expect(transients() !== transients())
        #expect(singles() === singles())
    }

    @Test("handles break a construction cycle")
    func handlesBreakCycles() {
        let component = LoopComponent()
        let parent = component.loop.parent()
        #expect(parent.child.value.parent === parent)
        #expect(parent.children().parent === parent)
    }

    @Test("handles refer to their component without keeping it alive; a resolved Lazy keeps its value")
    func handlesDoNotKeepTheComponentAlive() {
        weak var released: TestComponent?
        var lazy: Lazy<Thing>?
        var provider: Provider<Thing>?
        var resolved: Thing?
        do {
            let component = TestComponent()
            released = component
            lazy = component.lazy { $0.things.single() }
            provider = component.provider { $0.things.transient() }
            // Swift may release a value after its last use, so the component is kept for the reads.
            withExtendedLifetime(component) {
                resolved = lazy?.value
                #expect(provider?() !== provider?())
            }
        }
        #expect(released == nil)
        #expect(lazy?.value === resolved)
        withExtendedLifetime(provider) {}
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a Lazy read for the first time after its component was released traps with a message")
    func lazyAfterReleaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var component: TestComponent? = TestComponent()
            let lazy = component!.lazy { $0.things.single() }
            component = nil
            _ = lazy.value
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: a `Lazy<Thing>` made at DirkTests/HandleTests.swift:"))
        #expect(message.contains("was read after its component `TestComponent` was released"))
        #expect(message.contains("keep the component for as long as its handles are read"))
    }

    @Test("a Provider called after its component was released traps with a message")
    func providerAfterReleaseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var component: TestComponent? = TestComponent()
            let provider = component!.provider { $0.things.single() }
            component = nil
            _ = provider()
        }
        #expect(
            standardError(of: result).contains("`Provider<Thing>` made at DirkTests/HandleTests.swift:"))
    }

    @Test("a Lazy read while resolving itself traps")
    func lazyCycleTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            armExitTestWatchdog()
            let component = TestComponent()
            let holder = LazyHolder()
            holder.handle = component.lazy { _ in holder.handle!.value }
            _ = holder.handle!.value
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: a `Lazy<Thing>` of `TestComponent`, made at DirkTests/HandleTests.swift:")
        )
        #expect(message.contains("was read while it was resolving its own value"))
        #expect(message.contains("Read it after the provider"))
    }
    #endif
}

// MARK: Fixtures

final class LoopParent: Sendable {
    let child: Lazy<LoopChild>
    let children: Provider<LoopChild>

    init(child: Lazy<LoopChild>, children: Provider<LoopChild>) {
        self.child = child
        self.children = children
    }
}

// `@unchecked`: `parent` is written once, in `init` (a `weak let`, which Swift 6.0 does not have).
final class LoopChild: @unchecked Sendable {
    /// Weak, so that the parent, which the component caches, and its child form no retain cycle.
    private(set) weak var parent: LoopParent?

    init(parent: LoopParent) {
        self.parent = parent
    }
}

/// Holds a Lazy whose resolution reads the Lazy itself.
final class LazyHolder: @unchecked Sendable {
    var handle: Lazy<Thing>?
}

final class LoopComponent: Component, @unchecked Sendable {
    var loop: LoopModule { module() }
}

final class LoopModule: Module<LoopComponent> {
    func parent() -> LoopParent {
        single { c in
            LoopParent(child: c.lazy { $0.loop.child() }, children: c.provider { $0.loop.child() })
        }
    }
    func child() -> LoopChild { transient { c in LoopChild(parent: c.loop.parent()) } }

}
