import Dirk
import DirkTestSupport
import Testing

/// A component held in a local constant, and the provider calls made through its modules: what
/// ComponentsAndParents.md says under "Ownership and lifetimes". Each call goes through a function
/// that the optimizer may not inline, so that a release build compiles it as an app's code would be.
@Suite("A local component and the calls made through it")
struct LocalComponentLifetimeTests {
    @Test(
        "a local constant keeps its component alive for a call made through it, in debug and release builds")
    func localConstantLivesThroughTheCall() {
        let app = LocalAppComponent()
        for round in 1...1_000 {
            let log = EventLog()
            #expect(ticketThroughLocalChild(app, log) == round)
            #expect(log.events == ["factory", "deinit"])
        }
    }

    @Test("withExtendedLifetime keeps a local component alive for the calls in its body")
    func extendedLifetimeLivesThroughTheCall() {
        let app = LocalAppComponent()
        for round in 1...1_000 {
            let log = EventLog()
            #expect(ticketThroughExtendedChild(app, log) == round)
            #expect(log.events == ["factory", "deinit"])
        }
    }

    @Test("a component kept in a stored property stays alive for the calls made through it")
    func storedComponentLivesThroughTheCall() {
        let log = EventLog()
        let screen = LocalScreen(app: LocalAppComponent(), log: log)
        for round in 1...1_000 {
            #expect(screen.ticket() == round)
        }
        #expect(!log.events.contains("deinit"))
    }

    @Test("a provider call under way keeps its component alive when the last reference goes meanwhile")
    func callUnderWayKeepsItsComponent() {
        let log = EventLog()
        var child: LocalChildComponent? = LocalChildComponent(log: log).parent(LocalAppComponent())
        let work = child!.work
        // The factory drops the last reference; the component lives until the call returns.
        let number = work.ticket { child = nil }
        #expect(number == 1)
        #expect(log.events == ["factory", "deinit"])
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a chain on a temporary component stops: the component is released before its provider runs")
    func temporaryComponentStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = LocalChildComponent(log: EventLog()).parent(LocalAppComponent()).work.ticket()
        }
        #expect(
            standardError(of: result).contains(
                "Dirk: `LocalWorkModule.ticket(_:)` was called after its component `LocalChildComponent` was released"
            ))
    }
    #endif
}

/// `let child = ...; child.work.ticket()`, as an app writes it.
@inline(never)
private func ticketThroughLocalChild(_ app: LocalAppComponent, _ log: EventLog) -> Int {
    let child = LocalChildComponent(log: log).parent(app)
    return child.work.ticket()
}

/// The same call, with the component's lifetime stated.
@inline(never)
private func ticketThroughExtendedChild(_ app: LocalAppComponent, _ log: EventLog) -> Int {
    let child = LocalChildComponent(log: log).parent(app)
    return withExtendedLifetime(child) { child.work.ticket() }
}

// MARK: Fixtures

/// What happened, in order: the factory's run and the child component's deinitialization.
private final class EventLog: Sendable {
    private let box = LockedBox<[String]>([])

    func record(_ event: String) {
        box.withLock { $0.append(event) }
    }

    var events: [String] { box.withLock { $0 } }
}

private final class LocalAppComponent: Component, @unchecked Sendable {
    let counter = Counter()
}

private final class LocalChildComponent: Component, @unchecked Sendable {
    let log: EventLog

    init(log: EventLog) {
        self.log = log
    }

    deinit {
        log.record("deinit")
    }

    var app: LocalAppComponent { parent() }
    var work: LocalWorkModule { module() }
}

private final class LocalWorkModule: Module<LocalChildComponent> {
    /// A new number from the parent's counter, through the component, which must be alive.
    func ticket(_ during: () -> Void = {}) -> Int {
        transient { c in
            c.log.record("factory")
            during()
            return c.app.counter.increment()
        }
    }
}

/// An object that owns its scope's component in a stored property, as a screen or a request does.
private final class LocalScreen: Sendable {
    let child: LocalChildComponent

    init(app: LocalAppComponent, log: EventLog) {
        child = LocalChildComponent(log: log).parent(app)
    }

    func ticket() -> Int { child.work.ticket() }
}
