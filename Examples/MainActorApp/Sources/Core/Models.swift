/// A post in the feed.
public struct Item: Sendable, Hashable, Identifiable {
    public let id: Int
    public let title: String
    public let body: String

    public init(id: Int, title: String, body: String) {
        self.id = id
        self.title = title
        self.body = body
    }
}

/// A reader's comment on an item.
public struct Comment: Sendable, Hashable {
    public let author: String
    public let text: String

    public init(author: String, text: String) {
        self.author = author
        self.text = text
    }
}

/// A signed-in user, as the server knows them.
public struct UserSession: Sendable, Hashable {
    public let user: String
    public let token: String

    public init(user: String, token: String) {
        self.user = user
        self.token = token
    }
}

/// What the server answers instead of data.
public enum APIError: Error, Equatable {
    case wrongPassword
    case unauthorized
    case notFound(id: Int)
}
