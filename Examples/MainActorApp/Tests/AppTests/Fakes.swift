import Dirk

@testable import App

/// A server for tests: serves `items` and `flags`, fails every call with `failure` when it is set,
/// and records what it was sent and asked. An actor, so that a test can keep it and read what it
/// recorded.
actor FakeAPI: FeedAPI {
    let items: [Item]
    let flags: FeatureFlags
    private(set) var failure: APIError?
    private(set) var uploaded: [Int] = []
    private(set) var screens: [String] = []
    private(set) var flagRequests = 0

    init(
        items: [Item] = [Item(id: 7, title: "Fake", body: "From the test.")],
        flags: FeatureFlags = FeatureFlags(comments: true), failure: APIError? = nil
    ) {
        self.items = items
        self.flags = flags
        self.failure = failure
    }

    func signIn(user: String, password: String) throws -> UserSession {
        try failIfAsked()
        return UserSession(user: user, token: "fake")
    }

    func signOut(_ session: UserSession) {}

    func featureFlags() throws -> FeatureFlags {
        flagRequests += 1
        try failIfAsked()
        return flags
    }

    func fail(with failure: APIError?) {
        self.failure = failure
    }

    func feed(for session: UserSession) throws -> [Item] {
        try failIfAsked()
        return items
    }

    func item(id: Int, for session: UserSession) throws -> Item {
        try failIfAsked()
        guard let item = items.first(where: { $0.id == id }) else { throw APIError.notFound(id: id) }
        return item
    }

    func comments(on itemID: Int, for session: UserSession) throws -> [Comment] {
        try failIfAsked()
        return [Comment(author: "test", text: "on \(itemID)")]
    }

    func upload(readItems: [Int], for session: UserSession) throws {
        try failIfAsked()
        uploaded += readItems
    }

    func upload(screens: [String], for session: UserSession) throws {
        try failIfAsked()
        self.screens += screens
    }

    private func failIfAsked() throws {
        if let failure { throw failure }
    }
}

/// The app's component, over `api`.
func testApp(api: FakeAPI) -> AppComponent {
    AppComponent().overriding {
        $0.services.api()
    } with: {
        api
    }
}

/// A session over `api`, signed in as `user`, with its app component as its parent.
func testSession(api: FakeAPI, user: String = "test") -> SessionComponent {
    SessionComponent(user: UserSession(user: user, token: "fake")).parent(testApp(api: api))
}
