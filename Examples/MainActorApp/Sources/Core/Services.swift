/// Signs users in and out.
public final class AuthService: Sendable {
    private let api: any FeedAPI

    public init(api: any FeedAPI) {
        self.api = api
    }

    public func signIn(user: String, password: String) async throws -> UserSession {
        try await api.signIn(user: user, password: password)
    }

    public func signOut(_ session: UserSession) async {
        await api.signOut(session)
    }
}

/// The items the app has seen, shared by every screen.
public actor ItemStore {
    private var items: [Int: Item] = [:]

    public init() {}

    public func save(_ new: [Item]) {
        for item in new { items[item.id] = item }
    }

    public func item(id: Int) -> Item? { items[id] }
}

/// The signed-in user's feed: loads from the server and keeps what it loaded in the store.
public final class FeedService: Sendable {
    private let api: any FeedAPI
    private let store: ItemStore
    private let session: UserSession

    public init(api: any FeedAPI, store: ItemStore, session: UserSession) {
        self.api = api
        self.store = store
        self.session = session
    }

    public func loadFeed() async throws -> [Item] {
        let items = try await api.feed(for: session)
        await store.save(items)
        return items
    }

    /// The item from the store, or else from the server.
    public func item(id: Int) async throws -> Item {
        if let item = await store.item(id: id) { return item }
        let item = try await api.item(id: id, for: session)
        await store.save([item])
        return item
    }
}

/// The comments of an item: what only the detail screen uses.
public final class CommentsService: Sendable {
    private let api: any FeedAPI
    private let session: UserSession

    public init(api: any FeedAPI, session: UserSession) {
        self.api = api
        self.session = session
    }

    public func comments(on itemID: Int) async throws -> [Comment] {
        try await api.comments(on: itemID, for: session)
    }
}

/// What the user read during their session, sent to the server when they sign out.
public actor ReadingHistory {
    private let api: any FeedAPI
    private let session: UserSession
    public private(set) var unsent: [Int] = []

    public init(api: any FeedAPI, session: UserSession) {
        self.api = api
        self.session = session
    }

    public func markRead(_ itemID: Int) {
        if !unsent.contains(itemID) { unsent.append(itemID) }
    }

    /// Sends what was read since the last flush.
    public func flush() async throws {
        guard !unsent.isEmpty else { return }
        try await api.upload(readItems: unsent, for: session)
        unsent = []
    }
}
