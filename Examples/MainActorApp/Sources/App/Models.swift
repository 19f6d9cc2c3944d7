/// A post in the feed. Like every model and service that crosses to the server and back, it is
/// `nonisolated`: in this target, a declaration that says nothing is on the main actor.
nonisolated struct Item: Sendable, Hashable, Identifiable {
    let id: Int
    let title: String
    let body: String

    init(id: Int, title: String, body: String) {
        self.id = id
        self.title = title
        self.body = body
    }
}

/// A reader's comment on an item.
nonisolated struct Comment: Sendable, Hashable {
    let author: String
    let text: String

    init(author: String, text: String) {
        self.author = author
        self.text = text
    }
}

/// A signed-in user, as the server knows them.
nonisolated struct UserSession: Sendable, Hashable {
    let user: String
    let token: String

    init(user: String, token: String) {
        self.user = user
        self.token = token
    }
}

/// What the server answers instead of data.
nonisolated enum APIError: Error, Equatable {
    case wrongPassword
    case unauthorized
    case notFound(id: Int)
}
