import Dirk
import DirkTestSupport
import Testing

@Suite("A ring of async singles through configure:")
struct AsyncRingTests {
    @Test("resolved from both ends at once, by two tasks, each end gets the ring, complete, 100 rounds")
    func bothEndsAtOnce() async {
        let rounds = await withAsyncWatchdog { () async -> Int in
            var complete = 0
            for _ in 0..<100 {
                let app = AsyncRingComponent()
                // Each factory returns only once the other has begun, so both builds are under way
                // when the first configure: asks for the other end.
                async let left = app.ring.left()
                async let right = app.ring.right()
                let (l, r) = await (left, right)
                let cached = (await app.ring.left(), await app.ring.right())
                if l.peer === r && r.peer === l && cached.0 === l && cached.1 === r && app.builds.count == 2 {
                    complete += 1
                }
            }
            return complete
        }
        #expect(rounds == 100)
    }

    @Test("a ring resolved from both ends goes with its component")
    func ringGoesWithItsComponent() async {
        let released = await withAsyncWatchdog { () async -> [WeakObject] in
            let app = AsyncRingComponent()
            async let left = app.ring.left()
            async let right = app.ring.right()
            let (l, r) = await (left, right)
            return [WeakObject(app), WeakObject(l), WeakObject(r)]
        }
        #expect(released?.count == 3)
        #expect(
            released?.allSatisfy { $0.object == nil } == true, "the component or an end of its ring was kept")
    }

    @Test("a third task that asks while the ring resolves gets the instance configured")
    func onlookerWaits() async {
        let configuredOnArrival = await withAsyncWatchdog { () async -> Int in
            var configured = 0
            for _ in 0..<100 {
                let app = AsyncRingComponent()
                async let left = app.ring.left()
                async let right = app.ring.right()
                async let onlooker = { () async -> Bool in
                    await app.rightStarted.wait()
                    return await app.ring.left().peer != nil
                }()
                if await onlooker { configured += 1 }
                _ = await (left, right)
            }
            return configured
        }
        #expect(configuredOnArrival == 100)
    }

    @Test("a task that took the other end's instance goes on to await a child task that asks for the ring")
    func childTaskAfterTheRing() async {
        let rounds = await withAsyncWatchdog { () async -> Int in
            var complete = 0
            for _ in 0..<100 {
                let app = AsyncRingComponent()
                // `outer()` resolves the left end, then asks for the right end in a child task,
                // while another task resolves the right end.
                async let outer = app.ring.outer()
                async let right = app.ring.right()
                let (pair, r) = await (outer, right)
                if pair.left.peer === r && r.peer === pair.left && pair.right === r { complete += 1 }
            }
            return complete
        }
        #expect(rounds == 100)
    }

    @Test("resolved from either end in one task, the ring is complete", arguments: [true, false])
    func eitherEnd(fromLeft: Bool) async {
        let app = AsyncRingComponent()
        app.leftStarted.open()
        app.rightStarted.open()
        let first: AsyncPeer = fromLeft ? await app.ring.left() : await app.ring.right()
        let second: AsyncPeer = fromLeft ? await app.ring.right() : await app.ring.left()
        #expect(first.peer === second)
        #expect(second.peer === first)
        #expect(app.builds.count == 2)
    }

    @Test("when one end's configure: throws, the other end's call, which took its instance, throws too")
    func failedEnd() async {
        let outcomes = await withAsyncWatchdog { () async -> Int in
            var consistent = 0
            for _ in 0..<100 {
                let app = AsyncRingComponent()
                app.leftFails = true
                async let left = try? await app.ring.failingLeft()
                async let right = try? await app.ring.failingRight()
                let (l, r) = await (left, right)
                // The left configure: threw, so nothing that refers to its instance is returned.
                if l == nil && r == nil { consistent += 1 }
            }
            return consistent
        }
        #expect(outcomes == 100)
    }
}

/// Both ends of a ring, as one caller got them.
final class AsyncPair: Sendable {
    let left, right: AsyncPeer

    init(left: AsyncPeer, right: AsyncPeer) { (self.left, self.right) = (left, right) }
}

/// The error the left end's `configure:` throws.
struct RingError: Error {}

/// One end of a ring: its peer is the other end, set only by its provider's `configure:`; weak, so
/// that a ring that no component keeps, such as one whose `configure:` threw, goes.
final class AsyncPeer: @unchecked Sendable {
    nonisolated(unsafe) weak var peer: AsyncPeer?
}

final class AsyncRingComponent: Component, @unchecked Sendable {
    let (leftStarted, rightStarted) = (Latch(), Latch())
    let builds = Counter()
    nonisolated(unsafe) var leftFails = false
    var ring: AsyncRingModule { module() }
}

final class AsyncRingModule: Module<AsyncRingComponent> {
    func left() async -> AsyncPeer {
        await single { c in
            c.builds.increment()
            c.leftStarted.open()
            await c.rightStarted.wait()
            return AsyncPeer()
        } configure: { peer, c in
            peer.peer = await c.ring.right()
        }
    }

    func right() async -> AsyncPeer {
        await single { c in
            c.builds.increment()
            c.rightStarted.open()
            await c.leftStarted.wait()
            return AsyncPeer()
        } configure: { peer, c in
            peer.peer = await c.ring.left()
        }
    }

    func outer() async -> AsyncPair {
        await single { c in
            let left = await c.ring.left()
            async let right = c.ring.right()
            return AsyncPair(left: left, right: await right)
        }
    }

    func failingLeft() async throws(RingError) -> AsyncPeer {
        try await single { c async throws(RingError) in
            c.leftStarted.open()
            await c.rightStarted.wait()
            return AsyncPeer()
        } configure: { peer, c async throws(RingError) in
            peer.peer = try await c.ring.failingRight()
            throw RingError()
        }
    }

    func failingRight() async throws(RingError) -> AsyncPeer {
        try await single { c async throws(RingError) in
            c.rightStarted.open()
            await c.leftStarted.wait()
            return AsyncPeer()
        } configure: { peer, c async throws(RingError) in
            peer.peer = try await c.ring.failingLeft()
        }
    }
}
