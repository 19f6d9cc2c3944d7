import Dirk
import DirkTestSupport
import Testing

@Suite("A weak provider of a class-bound protocol type")
struct WeakProtocolTests {
    @Test("it shares one instance while a caller holds it, and builds a new one after it is released")
    func sharesWhileHeld() {
        let app = FeedComponent()
        var first: (any FeedService)? = app.feeds.feed()
        #expect(first === app.feeds.feed())
        weak var released: (any FeedService)?
        released = first
        first = nil
        #expect(released == nil, "the component refers to it weakly")
        #expect(app.feeds.feed().name == "live")
        #expect(app.feeds.built.count == 2)
    }

    @Test(
        "a test overrides it with a fake of the protocol, which the provider shares as it shares the original"
    )
    func overriddenWithAFake() {
        let app = FeedComponent().overriding {
            $0.feeds.feed()
        } with: {
            FakeFeedService()
        }
        let fake = app.feeds.feed()
        #expect(fake is FakeFeedService)
        #expect(app.feeds.feed() === fake)
        #expect(app.feeds.built.count == 0, "the original factory never runs")
    }

    @Test("a factory that receives the component builds the protocol type from other providers")
    func factoryTakesTheComponent() {
        let app = FeedComponent().overriding {
            $0.feeds.feed()
        } with: {
            FakeFeedService()
        }
        let reader = app.feeds.reader()
        #expect(reader.feed is FakeFeedService)
        #expect(app.feeds.reader() === reader)
    }
}

// MARK: Fixtures

private protocol FeedService: AnyObject, Sendable {
    var name: String { get }
}

private final class LiveFeedService: FeedService {
    let name = "live"
}

private final class FakeFeedService: FeedService {
    let name = "fake"
}

private protocol Reader: AnyObject, Sendable {
    var feed: any FeedService { get }
}

private final class FeedReader: Reader {
    let feed: any FeedService

    init(feed: any FeedService) {
        self.feed = feed
    }
}

private final class FeedComponent: Component, @unchecked Sendable {
    var feeds: FeedModule { module() }
}

private final class FeedModule: Module<FeedComponent> {
    let built = Counter()

    func feed() -> any FeedService {
        weak { [built] in
            _ = built.increment()
            return LiveFeedService() as any FeedService
        } object: {
            $0
        }
    }

    /// Keeps the feed it reads alive while it lives.
    func reader() -> any Reader {
        weak { c in
            FeedReader(feed: c.feeds.feed()) as any Reader
        } object: {
            $0
        }
    }
}
