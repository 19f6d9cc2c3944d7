import Synchronization

// The application's own types. None of them knows about Dirk: their dependencies come in
// through initializers, or through properties that a provider's `configure:` sets.

/// A class whose instances number themselves 1, 2, 3, … in creation order, so the output shows
/// which calls returned the same instance (`Store#1`) without printing memory addresses.
protocol Numbered: AnyObject, CustomStringConvertible {
    var number: Int { get }
}

extension Numbered {
    var description: String { "\(Self.self)#\(number)" }
}

// MARK: Application-wide

/// Key-value storage on disk.
final class Store: Numbered {
    private static let created = Atomic(0)
    let number = Store.created.add(1, ordering: .relaxed).newValue
}

/// Decoded images, worth keeping only while some screen shows them.
final class ImageCache: Numbered {
    private static let created = Atomic(0)
    let number = ImageCache.created.add(1, ordering: .relaxed).newValue
}

/// Sends requests to the backend.
protocol HTTPClient: Numbered {
    func get(_ path: String) -> String
}

/// The real client (here it only pretends to reach the network).
final class LiveHTTPClient: HTTPClient {
    private static let created = Atomic(0)
    let number = LiveHTTPClient.created.add(1, ordering: .relaxed).newValue

    func get(_ path: String) -> String { "\(path) from the network" }
}

/// Answers every request from the store, for offline mode.
final class OfflineHTTPClient: HTTPClient {
    private static let created = Atomic(0)
    let number = OfflineHTTPClient.created.add(1, ordering: .relaxed).newValue
    let store: Store

    init(store: Store) {
        self.store = store
    }

    func get(_ path: String) -> String { "\(path) from \(store)" }
}

/// Reports what users do.
final class Tracker: Numbered {
    private static let created = Atomic(0)
    let number = Tracker.created.add(1, ordering: .relaxed).newValue
    let client: any HTTPClient

    init(client: any HTTPClient) {
        self.client = client
    }
}

// MARK: Per signed-in user

/// A user's public profile.
final class Profile: Numbered {
    private static let created = Atomic(0)
    let number = Profile.created.add(1, ordering: .relaxed).newValue
    let id: String
    let source: String

    init(id: String, client: any HTTPClient) {
        self.id = id
        self.source = client.get("/users/\(id)")
    }
}

// MARK: Per screen

/// Ties together the work done to build one view model, for logs.
final class RequestContext: Numbered {
    private static let created = Atomic(0)
    let number = RequestContext.created.add(1, ordering: .relaxed).newValue
}

/// Fetches what the profile screen shows.
final class ProfileLoader: Numbered {
    private static let created = Atomic(0)
    let number = ProfileLoader.created.add(1, ordering: .relaxed).newValue
    let client: any HTTPClient
    let context: RequestContext

    init(client: any HTTPClient, context: RequestContext) {
        self.client = client
        self.context = context
    }
}

/// The state of the profile screen, made anew each time the screen refreshes.
final class ProfileViewModel: Numbered {
    private static let created = Atomic(0)
    let number = ProfileViewModel.created.add(1, ordering: .relaxed).newValue
    let profile: Profile
    let loader: ProfileLoader
    let context: RequestContext

    init(profile: Profile, loader: ProfileLoader, context: RequestContext) {
        self.profile = profile
        self.loader = loader
        self.context = context
    }
}

/// Decides what the profile view shows; it and its view refer to each other.
final class ProfilePresenter: Numbered {
    private static let created = Atomic(0)
    let number = ProfilePresenter.created.add(1, ordering: .relaxed).newValue
    let tracker: Tracker
    weak var view: ProfileView?

    init(tracker: Tracker) {
        self.tracker = tracker
    }
}

/// Draws the profile screen and forwards taps to its presenter.
final class ProfileView: Numbered {
    private static let created = Atomic(0)
    let number = ProfileView.created.add(1, ordering: .relaxed).newValue
    var presenter: ProfilePresenter?
}
