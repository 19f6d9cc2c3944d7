import Dirk
import DirkTestSupport
import Dispatch
import Testing

@Suite("The lock")
struct LockedTests {
    @Test("threads that change the state only inside withLock never interleave")
    func mutualExclusion() {
        let threads = 8
        let rounds = 20_000
        let lock = Unchecked(Dirk.Locked<TwoCounts>.make(TwoCounts()))
        let torn = Counter()
        // A lock that never let a waiter in would hang: the watchdog ends the test instead.
        withWatchdog {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<rounds {
                    lock.value.withLock { pair in
                        // Another thread inside at the same time would see the two counts apart.
                        if pair.first != pair.second { torn.increment() }
                        pair.first += 1
                        pair.second += 1
                    }
                }
            }
        }
        #expect(torn.count == 0)
        let pair = lock.value.withLock { $0 }
        #expect(pair.first == threads * rounds && pair.second == threads * rounds)
    }

    @Test("many threads on one lock, each on its own thread, all finish with an exact total")
    func contention() {
        let threads = 16
        let rounds = 2_000
        let lock = Unchecked(Dirk.Locked<Int>.make(0))
        withWatchdog {
            onThreads(threads) { _ in
                for round in 0..<rounds {
                    lock.value.withLock { $0 += 1 }
                    if round.isMultiple(of: 100) { letOthersRun() }
                }
            }
        }
        #expect(lock.value.withLock { $0 } == threads * rounds)
    }

    @Test("withLock returns the body's result, rethrows its typed error, and is free again afterwards")
    func resultAndError() {
        let lock = Unchecked(Dirk.Locked<[Int]>.make([]))
        let outcome = DirkTestSupport.Locked<(count: Int, caught: TestFailure?, after: [Int])?>(nil)
        let failure = TestFailure(4)
        withWatchdog {
            let count = lock.value.withLock { state in
                state.append(1)
                return state.count
            }
            var caught: TestFailure?
            do throws(TestFailure) {
                try lock.value.withLock { (state: inout [Int]) throws(TestFailure) in
                    state.append(2)
                    throw failure
                }
            } catch {
                caught = error
            }
            // A lock left held by the throw would stop this thread here.
            let after = lock.value.withLock { $0 }
            outcome.withLock { $0 = (count, caught, after) }
        }
        let (count, caught, after) = outcome.withLock { $0 } ?? (0, nil, [])
        #expect(count == 1)
        #expect(caught === failure)
        #expect(after == [1, 2], "a change made before the body threw stays")
    }

    #if DEBUG
        @Test("in debug builds, a thread that takes a lock it already holds stops the program")
        func reentryStops() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                armExitTestWatchdog()
                let lock = Dirk.Locked<Int>.make(0)
                lock.withLock { _ in
                    lock.withLock { $0 += 1 }
                }
            }
            let message = standardError(of: result)
            #expect(
                message.contains("Dirk internal error: a thread took a lock it already holds"), "\(message)")
        }
    #endif
}

/// Two counts that every change moves together.
struct TwoCounts {
    var first = 0
    var second = 0
}
