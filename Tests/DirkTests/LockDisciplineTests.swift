import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("No user code under Dirk's locks")
struct LockDisciplineTests {
    @Test(
        "a key whose hashing resolves another provider never deadlocks against reset() and dependencyGraph()")
    func resolvingKeysBesideReset() {
        let component = KeyComponent()
        let checks = OffThreadChecks()
        // Lookups during which a reset began: the overlap the test is about. On threads of their
        // own, and the lookups start once the resets have: Dispatch could start the resets after
        // the lookups had ended.
        let overlapping = Counter()
        withWatchdog {
            let done = Counter()
            let resets = Counter()
            onThreads(2) { thread in
                if thread == 1 {
                    repeat {
                        resets.increment()
                        component.reset()
                        _ = component.dependencyGraph()
                    } while done.count == 0
                    return
                }
                while resets.count == 0 { sched_yield() }
                var lookups = 0
                while lookups < 2_000 || (overlapping.count == 0 && lookups < 200_000) {
                    let before = resets.count
                    let key = ResolvingKey(number: lookups % 7, component: component)
                    checks.check(component.keys.keyed(key).number == lookups % 7, "another key's instance")
                    if resets.count != before { overlapping.increment() }
                    lookups += 1
                }
                done.increment()
            }
        }
        checks.expectNone()
        #expect(overlapping.count > 0, "no reset began while a key was resolved")
        #expect(component.keys.keyed(ResolvingKey(number: 3, component: component)).number == 3)
        // The cached keys hold the component; reset() releases them, which ends that cycle.
        component.reset()
    }

    #if compiler(>=6.3)  // An exit test that captures a value needs Swift 6.3.
    @Test(
        "a key whose hashing calls its own provider stops with a message instead of hanging, watched or not",
        arguments: KeyWatch.allCases)
    func reentrantKeyTraps(_ watch: KeyWatch) async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [watch] in
            armExitTestWatchdog()
            let component = KeyComponent()
            // Watched, a key that asks for itself: hashing it for the trace once recursed without
            // end. Not watched, one that asks for another key.
            let key = ResolvingKey(
                number: 1, component: component, reentrant: watch == .unwatched, loops: watch != .unwatched)
            func call() { _ = component.keys.keyed(key) }
            switch watch {
            case .unwatched: call()
            case .recorded:
                component.startRecordingDependencies()
                call()
            case .traced: _ = component.trace { call() }
            }
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: the key of `KeyModule.keyed(_:)` of `KeyComponent` called `KeyModule.keyed(_:)`"))
        #expect(message.contains("Make the key a plain value"))
    }
    #endif

    @Test("a deinitializer that resolves runs after reset() released the locks")
    func deinitializersResolveAfterReset() {
        let component = KeyComponent()
        withWatchdog {
            for _ in 0..<100 {
                _ = component.keys.resolvingOnRelease()
                component.reset()
            }
        }
        #expect(component.keys.released.count == 100)
    }

    @Test(
        "a weak instance whose deinit resolves in its component never deinitializes under the component's lock, racing traced and debug-checked calls"
    )
    func weakInstanceDeinitializesOutsideTheLock() {
        let component = KeyComponent()
        let checks = OffThreadChecks()
        withWatchdog {
            // Each thread asks for the instance and lets it go at once, so that the last reference
            // can be any thread's, at any moment: a plain call's (whose cell debug builds check
            // after every change), a traced call's (which looks whether the cell holds a value), or
            // the one a cell's check reads while another thread lets the instance go.
            onThreads(3) { thread in
                for _ in 0..<stressRounds(20_000) {
                    switch thread {
                    case 0: _ = component.keys.weakResolvingOnRelease()
                    case 1: _ = component.trace { component.keys.weakResolvingOnRelease() }
                    default:
                        let (_, trace) = component.trace { component.keys.plain() }
                        checks.check(
                            trace.contains("KeyModule.plain()"), "a trace without its call: \(trace)")
                    }
                }
            }
        }
        checks.expectNone()
        #expect(component.keys.released.count > 0, "no weak instance was released")
    }
}

// MARK: Fixtures

/// A key whose hashing and equality resolve a provider of its component.
struct ResolvingKey: Hashable, @unchecked Sendable {
    let number: Int
    let component: KeyComponent
    var reentrant = false
    /// Whether its hashing asks its provider for itself, which would never end.
    var loops = false

    static func == (lhs: ResolvingKey, rhs: ResolvingKey) -> Bool {
        _ = lhs.component.keys.plain()
        return lhs.number == rhs.number
    }

    func hash(into hasher: inout Hasher) {
        _ = component.keys.plain()
        if reentrant { _ = component.keys.keyed(ResolvingKey(number: number + 1, component: component)) }
        if loops { _ = component.keys.keyed(self) }
        hasher.combine(number)
    }
}

/// How a test watches a component's providers: not at all, by recording, or in a trace.
enum KeyWatch: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
    case unwatched, recorded, traced

    var testDescription: String { rawValue }
}

final class KeyComponent: Component, @unchecked Sendable {
    var keys: KeyModule { module() }
}

final class KeyModule: Module<KeyComponent> {
    let released = Counter()

    func plain() -> Thing { single { Thing() } }
    func keyed(_ key: ResolvingKey) -> Thing { single(key: key) { Thing(number: key.number) } }
    /// A `weak` instance whose deinitializer resolves a provider of the same component.
    func weakResolvingOnRelease() -> Resolving {
        weak { c in
            Resolving {
                _ = c.keys.plain()
                c.keys.released.increment()
            }
        }
    }

    /// An instance whose deinitializer resolves a provider of the same component.
    func resolvingOnRelease() -> Resolving {
        single { c in
            Resolving {
                _ = c.keys.plain()
                c.keys.released.increment()
            }
        }
    }
}
