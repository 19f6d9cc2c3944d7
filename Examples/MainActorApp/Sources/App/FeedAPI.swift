/// The server, as the app sees it: every call is async and may fail.
nonisolated protocol FeedAPI: Sendable {
    func signIn(user: String, password: String) async throws -> UserSession
    func featureFlags() async throws -> FeatureFlags
    func signOut(_ session: UserSession) async
    func feed(for session: UserSession) async throws -> [Item]
    func item(id: Int, for session: UserSession) async throws -> Item
    func comments(on itemID: Int, for session: UserSession) async throws -> [Comment]
    /// Records which items the user read.
    func upload(readItems: [Int], for session: UserSession) async throws
    /// Records which screens the user saw, for the server's analytics.
    func upload(screens: [String], for session: UserSession) async throws
}

/// The server's client. A real app would call `baseURL` with URLSession; so that the example runs
/// anywhere, this one answers from memory, as the server would, and remembers what it was sent.
actor LiveFeedAPI: FeedAPI {
    nonisolated let baseURL: String
    private let items = [
        Item(id: 1, title: "Dirk 1.0", body: "Components, modules, and a compiler that checks them."),
        Item(id: 2, title: "Main actor by default", body: "What a new app target assumes, and what it asks."),
    ]
    private var signedIn: Set<String> = []
    private var nextToken = 1
    /// The items that each user's app said they read.
    private(set) var readItems: [String: [Int]] = [:]
    /// The screens that each user's app said they saw.
    private(set) var screensShown: [String: [String]] = [:]

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    func signIn(user: String, password: String) throws -> UserSession {
        guard password == "secret" else { throw APIError.wrongPassword }
        defer { nextToken += 1 }
        let session = UserSession(user: user, token: "token-\(nextToken)")
        signedIn.insert(session.token)
        return session
    }

    func signOut(_ session: UserSession) {
        signedIn.remove(session.token)
    }

    func featureFlags() -> FeatureFlags { FeatureFlags(comments: true) }

    func feed(for session: UserSession) throws -> [Item] {
        try authorize(session)
        return items
    }

    func item(id: Int, for session: UserSession) throws -> Item {
        try authorize(session)
        guard let item = items.first(where: { $0.id == id }) else { throw APIError.notFound(id: id) }
        return item
    }

    func comments(on itemID: Int, for session: UserSession) throws -> [Comment] {
        try authorize(session)
        return itemID == 1 ? [Comment(author: "grace", text: "Finally.")] : []
    }

    func upload(readItems ids: [Int], for session: UserSession) throws {
        try authorize(session)
        readItems[session.user, default: []].append(contentsOf: ids)
    }

    func upload(screens: [String], for session: UserSession) throws {
        try authorize(session)
        screensShown[session.user, default: []].append(contentsOf: screens)
    }

    private func authorize(_ session: UserSession) throws {
        guard signedIn.contains(session.token) else { throw APIError.unauthorized }
    }
}
