import Dirk
import DirkTestSupport
import Dispatch
import Testing

// A feature as a package of its own would declare it: what it needs from its host, as a protocol,
// and its component, which reaches the host through `ancestor()`.

protocol CheckoutHost: AnyObject, Sendable {
    func paymentsClient() -> PaymentsClient
}

/// A protocol that is not bound to classes: `ancestor()` finds a component that conforms all the
/// same.
protocol HostGreeting {
    var greeting: String { get }
}

final class PaymentsClient: Sendable {}

final class CheckoutFlow {
    let payments: PaymentsClient

    init(payments: PaymentsClient) {
        self.payments = payments
    }
}

final class CheckoutFlowComponent: Component, @unchecked Sendable {
    var host: any CheckoutHost { ancestor() }
    var greeter: any HostGreeting { ancestor() }
    var checkout: CheckoutFlowModule { module() }
}

final class CheckoutFlowModule: Module<CheckoutFlowComponent> {
    func checkout() -> CheckoutFlow { transient { c in CheckoutFlow(payments: c.host.paymentsClient()) } }
}

// The application that hosts it.

final class StoreFrontComponent: Component, CheckoutHost, HostGreeting, @unchecked Sendable {
    var network: StoreFrontNetworkModule { module() }

    func paymentsClient() -> PaymentsClient { network.payments() }
    var greeting: String { "front" }
}

final class StoreFrontNetworkModule: Module<StoreFrontComponent> {
    func payments() -> PaymentsClient { single { PaymentsClient() } }
}

/// A component between the application and the feature, which conforms too.
final class StoreFrontSessionComponent: Component, CheckoutHost, @unchecked Sendable {
    let payments = PaymentsClient()

    func paymentsClient() -> PaymentsClient { payments }
}

/// A component between the application and the feature that conforms to nothing.
final class StoreFrontScreenComponent: Component, @unchecked Sendable {}

/// Another component that conforms to nothing, for a second path as long as a screen's.
final class StoreFrontTabComponent: Component, @unchecked Sendable {}

/// A test's host.
final class FakeCheckoutHost: Component, CheckoutHost, @unchecked Sendable {
    let payments = PaymentsClient()

    func paymentsClient() -> PaymentsClient { payments }
}

@Suite("Ancestors by protocol")
struct AncestorTests {
    @Test("a component reaches, by a protocol, the parent that conforms, and its providers")
    func ancestorByProtocol() {
        let front = StoreFrontComponent()
        let checkout = CheckoutFlowComponent().parent(front)
        #expect(checkout.host === front)
        #expect(checkout.checkout.checkout().payments === front.network.payments())
        #expect(checkout.checkout.checkout().payments === checkout.checkout.checkout().payments)
    }

    @Test("the search reaches the parents' ancestors, and the nearest that conforms wins")
    func nearestConformingAncestor() {
        let front = StoreFrontComponent()
        let throughScreen = CheckoutFlowComponent().parent(StoreFrontScreenComponent().parent(front))
        #expect(throughScreen.host === front)
        let session = StoreFrontSessionComponent().parent(front)
        let throughSession = CheckoutFlowComponent().parent(session)
        #expect(throughSession.host === session)
        #expect(throughSession.checkout.checkout().payments === session.payments)
        // The session does not conform to `HostGreeting`: the search goes on to the application.
        #expect(throughSession.greeter.greeting == "front")
    }

    @Test("of two answers as near, the one through the parent registered first wins")
    func earlierOfEqualAnswers() {
        let (session, fake) = (StoreFrontSessionComponent(), FakeCheckoutHost())
        #expect(CheckoutFlowComponent().parent(session).parent(fake).host === session)
        #expect(CheckoutFlowComponent().parent(fake).parent(session).host === fake)
        // Two steps away on each side.
        let (screen, tab) = (
            StoreFrontScreenComponent().parent(session), StoreFrontTabComponent().parent(fake)
        )
        #expect(CheckoutFlowComponent().parent(screen).parent(tab).host === session)
        #expect(CheckoutFlowComponent().parent(tab).parent(screen).host === fake)
    }

    @Test("a test hosts the feature with a fake component that conforms")
    func fakeHost() {
        let fake = FakeCheckoutHost()
        let checkout = CheckoutFlowComponent().parent(fake)
        #expect(checkout.checkout.checkout().payments === fake.payments)
    }

    @Test("ancestor() of a component class finds what parent() finds")
    func ancestorOfAClass() {
        let app = RootComponent()
        let feature = LeafComponent().parent(MiddleComponent().parent(app))
        let found: RootComponent = feature.ancestor()
        #expect(found === app)
        #expect(found === feature.app)
    }

    @Test("threads that ask at once for an ancestor not yet searched get the same one")
    func concurrentFirstSearches() {
        for _ in 0..<20 {
            let front = StoreFrontComponent()
            let checkout = CheckoutFlowComponent().parent(StoreFrontScreenComponent().parent(front))
            let found = LockedBox<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let host = checkout.host
                found.withLock { $0.append(ObjectIdentifier(host)) }
            }
            #expect(found.withLock { $0 } == Array(repeating: ObjectIdentifier(front), count: 8))
        }
    }

    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("no ancestor that conforms traps, naming every ancestor searched, nearest first, and both fixes")
    func missingAncestorTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let screen = StoreFrontScreenComponent().parent(PlainRootComponent())
            let checkout = CheckoutFlowComponent().parent(screen)
            _ = checkout.host
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: `CheckoutFlowComponent` has no ancestor that conforms to `CheckoutHost`.")
        )
        #expect(
            message.contains(
                "It searched its ancestors, nearest first: `StoreFrontScreenComponent`, `PlainRootComponent` (its parents given from DirkTests/AncestorTests.swift:"
            ))
        #expect(
            message.contains(
                "Make one of them conform, where it can provide what `CheckoutHost` requires: `extension StoreFrontScreenComponent: CheckoutHost`, with its requirements."
            ))
        #expect(
            message.contains(
                "Or open `CheckoutFlowComponent` under a component that conforms, on the new `CheckoutFlowComponent` when you build it, before its first resolution: `.parent(checkoutHostComponent)`."
            ))
        #expect(message.contains("AncestorTests.swift:"), "names the accessor's file")
        #expect(
            message.contains("to get an instance of `CheckoutHost` that a provider makes, call that provider")
        )
    }

    @Test("an ancestor of a class that is not a component traps, saying that none can be one")
    func ancestorOfAnotherClassTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let checkout = CheckoutFlowComponent().parent(StoreFrontComponent())
            let client: PaymentsClient = checkout.ancestor()
            _ = client
        }
        let message = standardError(of: result)
        #expect(
            message.contains(
                "Dirk: `CheckoutFlowComponent` was asked for an ancestor of type `PaymentsClient`, a class that is not a component"
            ))
        #expect(message.contains("Ask for a component class, or for a protocol"))
    }

    @Test("no parent at all traps, telling how to register the host")
    func noParentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = CheckoutFlowComponent().greeter
        }
        let message = standardError(of: result)
        #expect(
            message.contains("Dirk: `CheckoutFlowComponent` has no ancestor that conforms to `HostGreeting`.")
        )
        #expect(message.contains("It has no parents."))
        #expect(message.contains("before its first resolution: `.parent(hostGreetingComponent)`."))
    }
    #endif
}

/// A root that hosts nothing.
final class PlainRootComponent: Component, @unchecked Sendable {}
