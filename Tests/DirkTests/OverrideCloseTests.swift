import Dirk
import DirkTestSupport
import Testing

/// The fixtures are `ShutdownTests`' `ServerComponent`: its providers' `close:` actions add the
/// closed instance's name to `closed`.
@Suite("Overrides and close actions")
struct OverrideCloseTests {
    @Test(
        "a provider's close: never runs on an override's instance, which without a close of its own stays open"
    )
    func fakeIsNotClosedByTheRealClose() async throws {
        let closed = Closed()
        try await ServerComponent(closed: closed)
            .overriding {
                $0.storage.settings()
            } with: {
                Resource("fake settings")
            }
            .overriding {
                $0.storage.session(id: "a")
            } with: {
                Resource("fake session")
            }
            .withShutdown { app in
                #expect(app.storage.settings().name == "fake settings")
                #expect(app.storage.session(id: "b").name == "fake session")
                _ = app.storage.pool()
            }
        #expect(closed.names == ["pool"], "only the real instance is closed")
    }

    @Test("an override's close runs once at shutdown, in reverse build order with the real instances")
    func overrideCloseRunsOnceInReverseBuildOrder() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
            .overriding {
                $0.storage.settings()
            } with: {
                Resource("fake settings")  // built now, while the override is set up
            } close: {
                closed.add("\($0.name) (override)")
            }
        _ = app.storage.pool()
        #expect(app.storage.settings() === app.storage.settings())
        try await app.shutdown()
        #expect(closed.names == ["pool", "fake settings (override)"])
        try await app.shutdown()
        #expect(closed.names == ["pool", "fake settings (override)"], "a second shutdown closes nothing")
    }

    @Test("an override named through fresh(_:) is cached like any other, and its close runs at shutdown")
    func overrideNamedThroughFreshIsClosed() async throws {
        let closed = Closed()
        let app = ServerComponent(closed: closed)
            .overriding {
                $0.storage.fresh { $0.settings() }
            } with: {
                Resource("fake settings")
            } close: {
                closed.add("\($0.name) (override)")
            }
        #expect(app.storage.settings() === app.storage.settings(), "the override's instance is cached")
        try await app.shutdown()
        #expect(closed.names == ["fake settings (override)"])
    }

    @Test("a single(key:) override's close runs once per key, newest key first")
    func keyedOverrideClosesEachKey() async throws {
        let closed = Closed()
        try await ServerComponent(closed: closed)
            .overriding {
                $0.storage.session(id: "a")
            } with: {
                Resource("fake session")
            } close: {
                closed.add("\($0.name) (override)")
            }
            .withShutdown { app in
                _ = app.storage.pool()
                let b = app.storage.session(id: "b")
                #expect(app.storage.session(id: "b") === b)
                #expect(app.storage.session(id: "a") !== b)
            }
        #expect(
            closed.names == ["fake session (override)", "pool", "fake session (override)"],
            "key b, built after the pool, closes before it; key a, built while the override was set up, last")
    }

    @Test("an async single's override closes with its own close, never with the provider's")
    func asyncOverrideClose() async throws {
        let closed = Closed()
        let withClose = await ServerComponent(closed: closed).overriding {
            await $0.storage.users()
        } with: {
            await Task.yield()
            return Resource("fake users")
        } close: {
            closed.add("\($0.name) (override)")
        }
        _ = withClose.storage.pool()
        #expect(await withClose.storage.users().name == "fake users")
        try await withClose.shutdown()
        #expect(closed.names == ["pool", "fake users (override)"])

        let otherClosed = Closed()
        try await ServerComponent(closed: otherClosed)
            .overriding {
                await $0.storage.users()
            } with: {
                Resource("fake users")
            }
            .withShutdown { app in #expect(await app.storage.users().name == "fake users") }
        #expect(otherClosed.names.isEmpty, "the real users' close never runs on the fake")
    }

    @Test(
        "an override's close never runs for a transient's instances or a fresh copy, which the component does not keep"
    )
    func overrideCloseSkipsWhatTheComponentDoesNotKeep() async throws {
        let closed = Closed()
        try await ServerComponent(closed: closed)
            .overriding {
                $0.work.fresh()
            } with: {
                Resource("fake transient")
            } close: {
                closed.add($0.name)
            }
            .overriding {
                $0.storage.settings()
            } with: {
                Resource("fake settings")
            } close: {
                closed.add($0.name)
            }
            .withShutdown { app in
                #expect(app.work.fresh() !== app.work.fresh())
                let copy = app.storage.fresh { $0.settings() }
                #expect(copy.name == "fake settings" && copy !== app.storage.settings())
            }
        #expect(closed.names == ["fake settings"], "only the instance the component keeps, once")
    }

    @Test("an override's instances, closed or not, go with their component after shutdown")
    func overrideInstancesAreReleased() async throws {
        weak var closedFake: Resource?
        weak var openFake: Resource?
        do {
            let app = ServerComponent(closed: Closed())
                .overriding {
                    $0.storage.settings()
                } with: {
                    Resource("closed fake")
                } close: { _ in
                }
                .overriding {
                    $0.storage.pool()
                } with: {
                    Resource("open fake")
                }
            closedFake = app.storage.settings()
            openFake = app.storage.pool()
            try await app.shutdown()
            #expect(closedFake != nil && openFake != nil)
        }
        #expect(closedFake == nil, "the close action let go of its instance")
        #expect(openFake == nil)
    }
}
