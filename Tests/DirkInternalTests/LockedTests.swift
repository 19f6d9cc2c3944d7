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
        let outcome = LockedBox<(count: Int, caught: TestFailure?, after: [Int])?>(nil)
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

    @Test(
        "a box's extra words start at zero, stay at one address for its lifetime, keep what is written to them, and are its own"
    )
    func extraWords() {
        let first = Dirk.Locked<Int>.make(0, extraWords: 4)
        let second = Dirk.Locked<Int>.make(0, extraWords: 4)
        func words(of box: Dirk.Locked<Int>) -> [UInt] {
            box.buffer.withExtraWords { words in (0..<4).map { words[$0] } }
        }
        // The words' address, compared only: no pointer leaves `withExtraWords`.
        func address(of box: Dirk.Locked<Int>) -> UInt { box.buffer.withExtraWords { UInt(bitPattern: $0) } }
        let before = address(of: first)
        #expect(words(of: first) == [0, 0, 0, 0])
        first.buffer.withExtraWords { words in for index in 0..<4 { words[index] = UInt(index + 1) } }
        first.withLock { $0 += 1 }
        #expect(address(of: first) == before, "the words do not move")
        #expect(words(of: first) == [1, 2, 3, 4], "the lock leaves the words alone")
        #expect(words(of: second) == [0, 0, 0, 0], "another box's words are apart")
        #expect(first.withLock { $0 } == 1, "the words lie beside the state, not over it")
    }

    #if DEBUG
    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
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
    #endif
}

/// Two counts that every change moves together.
struct TwoCounts {
    var first = 0
    var second = 0
}

@Suite("The parker a waiting thread sleeps on")
struct ParkerTests {
    @Test("a message delivered before the wait is received at once")
    func deliveredBefore() {
        let parker = Unchecked(Parker<WaitEvent>())
        parker.value.deliver(.recheck)
        let received = LockedBox<EventSummary?>(nil)
        withWatchdog {
            let summary = parker.value.receive().summary
            received.withLock { $0 = summary }
        }
        #expect(received.withLock { $0 } == .recheck)
    }

    @Test("a thread that waits sleeps until another thread delivers, and gets that very message")
    func deliveredFromAnotherThread() {
        let parker = Unchecked(Parker<WaitEvent>())
        let item = Item()
        let received = LockedBox<EventSummary?>(nil)
        withWatchdog {
            onThreads(2) { index in
                if index == 0 {
                    let summary = parker.value.receive().summary
                    received.withLock { $0 = summary }
                } else {
                    letOthersRun()
                    parker.value.deliver(.finished(.success(item)))
                }
            }
        }
        #expect(received.withLock { $0 } == .value(ObjectIdentifier(item)))
    }

    @Test("a parker serves one wait after another, each receiving the one message delivered for it")
    func reused() {
        let rounds = 100
        let parker = Unchecked(Parker<WaitEvent>())
        let acknowledged = Unchecked(Parker<WaitEvent>())
        let received = LockedBox<[EventSummary]>([])
        withWatchdog {
            onThreads(2) { index in
                for round in 0..<rounds {
                    if index == 0 {
                        let summary = parker.value.receive().summary
                        received.withLock { $0.append(summary) }
                        acknowledged.value.deliver(.recheck)
                    } else {
                        parker.value.deliver(round.isMultiple(of: 2) ? .recheck : .cancelled)
                        _ = acknowledged.value.receive()
                    }
                }
            }
        }
        #expect(
            received.withLock { $0 } == (0..<rounds).map { $0.isMultiple(of: 2) ? .recheck : .cancelled })
    }
}
