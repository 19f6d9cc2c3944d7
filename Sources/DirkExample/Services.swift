import Foundation

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

/// Hands out 1, 2, 3, … to instances created on any thread.
final class Tally: @unchecked Sendable {
    // `last` is guarded by `lock`.
    private let lock = NSLock()
    private var last = 0

    func next() -> Int {
        lock.withLock {
            last += 1
            return last
        }
    }
}

// MARK: Application-wide

/// Key-value storage on disk.
final class Store: Numbered, Sendable {
    private static let created = Tally()
    let number = Store.created.next()
}

/// Decoded images, worth keeping only while some screen shows them.
final class ImageCache: Numbered, Sendable {
    private static let created = Tally()
    let number = ImageCache.created.next()
}

/// Sends requests to the backend.
protocol HTTPClient: Numbered, Sendable {
    func get(_ path: String) -> String
}

/// The real client (here it only pretends to reach the network).
final class LiveHTTPClient: HTTPClient {
    private static let created = Tally()
    let number = LiveHTTPClient.created.next()

    func get(_ path: String) -> String { "\(path) from the network" }
}

/// Answers every request from the store, for offline mode.
final class OfflineHTTPClient: HTTPClient {
    private static let created = Tally()
    let number = OfflineHTTPClient.created.next()
    let store: Store

    init(store: Store) {
        self.store = store
    }

    func get(_ path: String) -> String { "\(path) from \(store)" }
}

/// Reports what users do.
final class Tracker: Numbered, Sendable {
    private static let created = Tally()
    let number = Tracker.created.next()
    let client: any HTTPClient

    init(client: any HTTPClient) {
        self.client = client
    }
}

// MARK: Per signed-in user

/// A user's public profile.
final class Profile: Numbered, Sendable {
    private static let created = Tally()
    let number = Profile.created.next()
    let id: String
    let source: String

    init(id: String, client: any HTTPClient) {
        self.id = id
        self.source = client.get("/users/\(id)")
    }
}

// MARK: Per screen

/// Ties together the work done to build one view model, for logs.
final class RequestContext: Numbered, Sendable {
    private static let created = Tally()
    let number = RequestContext.created.next()
}

/// Fetches what the profile screen shows.
final class ProfileLoader: Numbered {
    private static let created = Tally()
    let number = ProfileLoader.created.next()
    let client: any HTTPClient
    let context: RequestContext

    init(client: any HTTPClient, context: RequestContext) {
        self.client = client
        self.context = context
    }
}

/// The state of the profile screen, made anew each time the screen refreshes.
final class ProfileViewModel: Numbered {
    private static let created = Tally()
    let number = ProfileViewModel.created.next()
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
    private static let created = Tally()
    let number = ProfilePresenter.created.next()
    let tracker: Tracker
    weak var view: ProfileView?

    init(tracker: Tracker) {
        self.tracker = tracker
    }
}

/// Draws the profile screen and forwards taps to its presenter.
final class ProfileView: Numbered {
    private static let created = Tally()
    let number = ProfileView.created.next()
    var presenter: ProfilePresenter?
}
