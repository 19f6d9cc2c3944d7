/// Signs users in and out. The services run off the main actor, so they say `nonisolated`, as every
/// declaration that must not be on the main actor does in this target.
nonisolated final class AuthService: Sendable {
    private let api: any FeedAPI

    init(api: any FeedAPI) {
        self.api = api
    }

    func signIn(user: String, password: String) async throws -> UserSession {
        try await api.signIn(user: user, password: password)
    }

    func signOut(_ session: UserSession) async {
        await api.signOut(session)
    }
}

/// The items the app has seen, shared by every screen.
actor ItemStore {
    private var items: [Int: Item] = [:]

    init() {}

    func save(_ new: [Item]) {
        for item in new { items[item.id] = item }
    }

    func item(id: Int) -> Item? { items[id] }
}

/// The signed-in user's feed: loads from the server and keeps what it loaded in the store.
nonisolated final class FeedService: Sendable {
    private let api: any FeedAPI
    private let store: ItemStore
    private let session: UserSession

    init(api: any FeedAPI, store: ItemStore, session: UserSession) {
        self.api = api
        self.store = store
        self.session = session
    }

    func loadFeed() async throws -> [Item] {
        let items = try await api.feed(for: session)
        await store.save(items)
        return items
    }

    /// The item from the store, or else from the server.
    func item(id: Int) async throws -> Item {
        if let item = await store.item(id: id) { return item }
        let item = try await api.item(id: id, for: session)
        await store.save([item])
        return item
    }
}

/// The comments of an item: what only the detail screen uses.
nonisolated final class CommentsService: Sendable {
    private let api: any FeedAPI
    private let session: UserSession

    init(api: any FeedAPI, session: UserSession) {
        self.api = api
        self.session = session
    }

    func comments(on itemID: Int) async throws -> [Comment] {
        try await api.comments(on: itemID, for: session)
    }
}

/// What the user read during their session, sent to the server when they sign out.
actor ReadingHistory {
    private let api: any FeedAPI
    private let session: UserSession
    private(set) var unsent: [Int] = []

    init(api: any FeedAPI, session: UserSession) {
        self.api = api
        self.session = session
    }

    func markRead(_ itemID: Int) {
        if !unsent.contains(itemID) { unsent.append(itemID) }
    }

    /// Sends what was read since the last flush.
    func flush() async throws {
        guard !unsent.isEmpty else { return }
        try await api.upload(readItems: unsent, for: session)
        unsent = []
    }
}
