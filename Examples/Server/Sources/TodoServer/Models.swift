import HTTPTypes
import Hummingbird

/// The user a request acts for, named by its `X-User` header.
struct User: Sendable, Hashable {
    /// The user's name, as the header gave it.
    let name: String
}

/// One item of a user's list, as the routes send it.
struct Todo: ResponseCodable, Equatable {
    /// Unique across all users, assigned by the store.
    let id: Int
    /// What to do.
    let title: String
}

/// The body of `POST /todos`.
struct NewTodo: Codable {
    /// What to do; must not be blank, and has at most `Limits.titleCharacters` characters.
    let title: String
}

/// The body of `PATCH /todos/:id`: the fields to change, each optional.
struct TodoPatch: Codable {
    /// The new title, if it changes; must not be blank.
    let title: String?
}

/// One change made through the server, stamped with the request that made it.
struct AuditEntry: ResponseCodable, Equatable {
    /// Hummingbird's id of the request, as in its logs.
    let requestID: String
    /// The user the request acted for.
    let user: String
    /// What changed, in a few words that name it by its id, such as `added todo 12`.
    let action: String
}

extension HTTPField.Name {
    /// `X-User`: the user a request acts for. It stands in for real authentication.
    static let user = HTTPField.Name("X-User")!
}
