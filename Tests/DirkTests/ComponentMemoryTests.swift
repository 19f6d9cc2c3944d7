import Dirk
import DirkTestSupport
import Testing

/// A component keeps its lock, its state and its directory in a storage that its modules hold too:
/// these tests check that a module which outlives its component, or races its release, never
/// touches what the release destroys. AddressSanitizer runs them in CI.
@Suite("A component's own memory")
struct ComponentMemoryTests {
    @Test("a module that outlives its component releases nothing of the component's state")
    func moduleOutlivesItsComponent() {
        weak var instance: Thing?
        weak var released: MemoryModule?
        do {
            var module: MemoryModule?
            do {
                let component = MemoryComponent()
                module = MemoryModule(component)
                instance = module?.single()
                #expect(component.dependencyGraph().modules == ["MemoryModule"])
            }
            #expect(instance == nil, "the component's release emptied the module's caches")
            released = module
            #expect(released != nil)
            module = nil
        }
        #expect(released == nil)
    }

    @Test("modules released on other threads while their component is released leave no cells behind")
    func modulesRacingTheRelease() throws {
        // Each round stamps, in one sequence, when the component's release and each module's begin
        // (their deinitializers) and end (right after the statements that dropped them): a module whose
        // release began before the component's ended, and ended after it began, raced it. The
        // rounds go on until one did, within a bound; the checks are made outside the watchdog's
        // thread, so that they count for this test.
        let outcome = LockedBox<(rounds: Int, raced: Int, kept: Int)?>(nil)
        withWatchdog {
            var (rounds, raced, kept) = (0, 0, 0)
            while rounds < stressRounds(200) || (raced == 0 && rounds < stressRounds(2_000)) {
                rounds += 1
                let clock = Counter()
                let componentRelease = LockedBox<(begin: Int, end: Int)>((0, 0))
                let moduleReleases = LockedBox<[(begin: Int, end: Int)]>(Array(repeating: (0, 0), count: 3))
                var instances: [WeakThing] = []
                do {
                    let component = LockedBox<MemoryComponent?>(
                        RacingComponent { componentRelease.withLock { $0.begin = clock.increment() } })
                    let modules = LockedBox(
                        component.withLock { owner in
                            (0..<3).map { index in
                                RacingModule(owner!) {
                                    moduleReleases.withLock { $0[index].begin = clock.increment() }
                                }
                            }
                        })
                    instances = modules.withLock {
                        $0.map { module in
                            let probe = WeakThing()
                            probe.object = module.single()
                            return probe
                        }
                    }
                    let arrived = Counter()
                    onThreads(4) { index in
                        _ = arrived.increment()
                        while arrived.count < 4 {}
                        if index == 0 {
                            component.withLock {
                                $0 = nil
                                componentRelease.withLock { $0.end = clock.increment() }
                            }
                        } else {
                            // The module popped goes at once; its release ends with the statement.
                            modules.withLock { modules in
                                let last = modules.count - 1
                                _ = modules.popLast()
                                moduleReleases.withLock { $0[last].end = clock.increment() }
                            }
                        }
                    }
                    if !modules.withLock({ $0.isEmpty }) { kept += 1 }
                }
                if instances.contains(where: { $0.object != nil }) { kept += 1 }
                let component = componentRelease.withLock { $0 }
                if moduleReleases.withLock({ $0 }).contains(where: {
                    $0.begin < component.end && component.begin < $0.end
                }) {
                    raced += 1
                }
            }
            outcome.withLock { $0 = (rounds, raced, kept) }
        }
        let (rounds, raced, kept) = try #require(outcome.withLock { $0 }, "the watchdog ended the rounds")
        report("modulesRacingTheRelease: \(raced) of \(rounds) rounds raced the release")
        #expect(raced > 0, "no module's release overlapped its component's in \(rounds) rounds")
        #expect(kept == 0, "rounds in which a module's instance or a module outlived the release: \(kept)")
    }

    @Test("a recording child released before its parent stops being one of the parent's recorders")
    func recorderReleasedBeforeItsParent() {
        let parent = MemoryComponent()
        _ = parent.makers.single()
        #expect(parent.observerCount == 0)
        weak var releasedChild: MemoryChildComponent?
        do {
            let child = MemoryChildComponent().parent(parent).startRecordingDependencies()
            releasedChild = child
            #expect(parent.observerCount == 1)
            _ = child.makers.viaParent()
            #expect(
                child.dependencyGraph().dependencies
                    == [.init(from: "MemoryChildModule.viaParent()", to: "MemoryModule.single()")])
        }
        #expect(releasedChild == nil)
        #expect(parent.observerCount == 0)
        let later = MemoryChildComponent().parent(parent).startRecordingDependencies()
        _ = later.makers.viaParent()
        #expect(parent.observerCount == 1)
    }
}

class MemoryComponent: Component, @unchecked Sendable {
    var makers: MemoryModule { module() }
}

/// A component that calls `onRelease` when its release begins, before `Component`'s `deinit`.
final class RacingComponent: MemoryComponent, @unchecked Sendable {
    let onRelease: @Sendable () -> Void

    init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
        super.init()
    }

    deinit { onRelease() }
}

/// A module that calls `onRelease` when its release begins, before `Module`'s `deinit`.
final class RacingModule: Module<MemoryComponent> {
    let onRelease: @Sendable () -> Void

    init(_ component: MemoryComponent, onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
        super.init(component)
    }

    required init(_ component: MemoryComponent) {
        onRelease = {}
        super.init(component)
    }

    deinit { onRelease() }

    func single() -> Thing { single { Thing(number: 7) } }
}

/// A component that reports to `onDeinit` from its `deinit`.

final class MemorySubcomponent: MemoryComponent, @unchecked Sendable {
    let extra = 42
}

final class MemoryModule: Module<MemoryComponent> {
    func single() -> Thing { single { Thing(number: 7) } }
}

final class MemoryChildComponent: Component, @unchecked Sendable {
    var parentComponent: MemoryComponent { parent() }
    var makers: MemoryChildModule { module() }
}

final class MemoryChildModule: Module<MemoryChildComponent> {
    func viaParent() -> Thing { transient { c in c.parentComponent.makers.single() } }
}
