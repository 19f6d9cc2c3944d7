/// A post in the feed. Like every model and service that crosses to the server and back, it is
/// `nonisolated`: in this target, a declaration that says nothing is on the main actor.
nonisolated struct Item: Sendable, Hashable, Identifiable {
    let id: Int
    let title: String
    let body: String
}

/// A reader's comment on an item.
nonisolated struct Comment: Sendable, Hashable {
    let author: String
    let text: String
}

/// A signed-in user, as the server knows them.
nonisolated struct UserSession: Sendable, Hashable {
    let user: String
    let token: String
}

/// What the server lets this app show, fetched once at launch.
nonisolated struct FeatureFlags: Sendable, Hashable {
    let comments: Bool
}

/// What the server answers instead of data.
nonisolated enum APIError: Error, Equatable {
    case wrongPassword
    case unauthorized
    case notFound(id: Int)
}
