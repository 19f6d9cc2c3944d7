import Dirk
import DirkTestSupport
import Dispatch
import Foundation
import Testing

@Suite("Reset under load")
struct ResetStressTests {
    @Test("reset() looping beside readers of every cached strategy never hands out a released instance")
    func resetBesideReaders() {
        let component = CanaryComponent()
        let readersDone = Counter()
        let resets = Counter()
        let rounds = stressRounds(60_000)
        withWatchdog {
            // Threads of their own: the global queue would start the resetter only once a reader
            // had finished.
            let group = DispatchGroup()
            for reader in 0..<3 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    for iteration in 0..<rounds {
                        let key = (reader + iteration) % 4
                        component.canaries.single().check()
                        component.canaries.value().canary.check()
                        component.canaries.keyed(key).check()
                        let keyed = component.canaries.keyedValue(key)
                        keyed.canary.check()
                        precondition(keyed.key == key)
                        component.canaries.transient().canary.check()
                        component.canaries.configured().check()
                    }
                    readersDone.increment()
                }.start()
            }
            group.enter()
            Thread {
                defer { group.leave() }
                repeat {
                    component.reset()
                    resets.increment()
                } while readersDone.count < 3
            }.start()
            group.wait()
        }
        report("reset under load: \(resets.count) resets beside 3 × \(rounds) reads of six providers")
        component.reset()
        #expect(resets.count > 1)
        #expect(Canary.alive.count == 0)
    }
}

/// An object that notices being used after it was released.
final class Canary: @unchecked Sendable {
    static let alive = LiveCount()
    private var magic = 0xC0FFEE
    private let payload = [1, 2, 3]

    init() {
        Canary.alive.add(1)
    }

    deinit {
        precondition(magic == 0xC0FFEE, "a canary was released twice")
        magic = 0
        Canary.alive.add(-1)
    }

    func check() {
        precondition(magic == 0xC0FFEE && payload.count == 3, "Dirk handed out a released instance")
    }
}

/// A count of live canaries; safe from any thread.
final class LiveCount: @unchecked Sendable {
    private let counter = LockedBox(0)

    func add(_ delta: Int) { counter.withLock { $0 += delta } }

    var count: Int { counter.withLock { $0 } }
}

struct CanaryValue {
    let canary: Canary
    let key: Int
}

final class CanaryComponent: Component, @unchecked Sendable {
    var canaries: CanaryModule { module() }
}

final class CanaryModule: Module<CanaryComponent> {
    func single() -> Canary { single { Canary() } }
    func value() -> CanaryValue { single { CanaryValue(canary: Canary(), key: 0) } }
    func keyed(_ key: Int) -> Canary { single(key: key) { Canary() } }
    func keyedValue(_ key: Int) -> CanaryValue {
        single(key: key) { CanaryValue(canary: Canary(), key: key) }
    }
    func transient() -> CanaryValue { transient { c in CanaryValue(canary: c.canaries.single(), key: 0) } }
    func configured() -> Canary { single({ Canary() }, configure: { _, c in _ = c.canaries.single() }) }
}
