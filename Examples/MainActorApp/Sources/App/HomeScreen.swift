import Dirk
import Observation

/// The home screen's component, one per screen shown, below the session.
nonisolated final class HomeComponent: Component, @unchecked Sendable {
    var session: SessionComponent { parent() }
}

extension HomeComponent {
    // In an extension, the accessor is main-actor, as the target's default says: no annotation.
    var screen: HomeScreenModule { module() }
}

/// The home screen's view models. Like the view models themselves, main-actor by default.
final class HomeScreenModule: MainActorModule<HomeComponent> {
    func viewModel() -> HomeViewModel {
        single { c in
            HomeViewModel(
                user: c.session.user.user, feed: c.session.account.feed(),
                tracker: c.session.account.tracker())
        }
    }
}

@Observable
final class HomeViewModel {
    enum State: Equatable {
        case idle
        case loading
        case loaded([Item])
        case failed(String)
    }

    let user: String
    private(set) var state = State.idle
    private let feed: FeedService
    private let tracker: ScreenTracker

    init(user: String, feed: FeedService, tracker: ScreenTracker) {
        self.user = user
        self.feed = feed
        self.tracker = tracker
    }

    var title: String { "\(user)'s feed" }

    /// Loads the feed: what the view's `.task { await model.load() }` calls.
    func load() async {
        tracker.appeared("home")
        state = .loading
        do {
            state = .loaded(try await feed.loadFeed())
        } catch {
            state = .failed("\(error)")
        }
    }
}
