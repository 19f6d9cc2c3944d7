import Dirk

@testable import App

/// A server for tests: serves `items`, fails every call with `failure` when it is set, and records
/// what it was sent. An actor, so that a test can keep it and read what it recorded.
actor FakeAPI: FeedAPI {
    let items: [Item]
    let failure: APIError?
    private(set) var uploaded: [Int] = []
    private(set) var screens: [String] = []

    init(items: [Item] = [Item(id: 7, title: "Fake", body: "From the test.")], failure: APIError? = nil) {
        self.items = items
        self.failure = failure
    }

    func signIn(user: String, password: String) throws -> UserSession {
        try failIfAsked()
        return UserSession(user: user, token: "fake")
    }

    func signOut(_ session: UserSession) {}

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

/// A session over `api`, signed in as `user`, with its app component as its parent.
func testSession(api: FakeAPI, user: String = "test") -> SessionComponent {
    let app = AppComponent().overriding {
        $0.services.api()
    } with: {
        api
    }
    return SessionComponent(user: UserSession(user: user, token: "fake")).parent(app)
}
