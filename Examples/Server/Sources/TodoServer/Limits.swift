/// What the server accepts from a request, and so how much of its memory one request can hold.
///
/// Change them here: the routes, the middleware and the request context read them.
enum Limits {
    /// The most bytes a request's body may have: 16 KiB, room for a title of `titleCharacters`
    /// however it is escaped. A larger body gets 413 Content Too Large, and the connection closes:
    /// the server stops reading the rest.
    static let bodyBytes = 16 * 1024
    /// The most characters a todo's title may have: 200. A longer title gets 400 Bad Request.
    static let titleCharacters = 200
    /// The most characters a user's name, its `X-User` header, may have: 64. A longer name gets
    /// 400 Bad Request.
    static let userCharacters = 64
}
