import Dirk
import Observation

/// The detail screen's component, one per item opened, below the session.
nonisolated final class DetailComponent: Component, @unchecked Sendable {
    let itemID: Int

    init(itemID: Int) {
        self.itemID = itemID
        super.init()
    }

    var session: SessionComponent { parent() }
}

extension DetailComponent {
    var screen: DetailScreenModule { module() }
}

/// Everything the detail screen uses that nothing else does, its view models and its comments
/// service, in one main-actor module: a screen needs one module. Not `final`: a test subclasses it
/// to replace the comments service.
class DetailScreenModule: MainActorModule<DetailComponent> {
    func comments() -> CommentsService {
        single { c in CommentsService(api: c.session.app.services.api(), session: c.session.user) }
    }

    func viewModel() -> DetailViewModel {
        single { c in
            DetailViewModel(
                itemID: c.itemID, feed: c.session.account.feed(), history: c.session.account.history(),
                tracker: c.session.account.tracker())
        }
    }

    func commentsViewModel() -> CommentsViewModel {
        single { c in CommentsViewModel(itemID: c.itemID, comments: c.screen.comments()) }
    }
}

@Observable
final class DetailViewModel {
    let itemID: Int
    private(set) var item: Item?
    private(set) var error: String?
    private let feed: FeedService
    private let history: ReadingHistory
    private let tracker: ScreenTracker

    init(itemID: Int, feed: FeedService, history: ReadingHistory, tracker: ScreenTracker) {
        self.itemID = itemID
        self.feed = feed
        self.history = history
        self.tracker = tracker
    }

    /// Loads the item and marks it read.
    func load() async {
        tracker.appeared("detail \(itemID)")
        do {
            item = try await feed.item(id: itemID)
            await history.markRead(itemID)
        } catch {
            self.error = "\(error)"
        }
    }
}

@Observable
final class CommentsViewModel {
    let itemID: Int
    private(set) var comments: [Comment] = []
    /// The loading that `appear()` started, which a test awaits.
    private(set) var loading: Task<Void, Never>?
    private let service: CommentsService

    init(itemID: Int, comments: CommentsService) {
        self.itemID = itemID
        self.service = comments
    }

    /// Starts loading the comments, on the main actor, as a view's `onAppear` would.
    func appear() {
        guard loading == nil else { return }
        loading = Task {
            comments = (try? await service.comments(on: itemID)) ?? []
        }
    }
}
