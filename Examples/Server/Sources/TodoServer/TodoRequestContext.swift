import Hummingbird
import NIOCore

/// What Hummingbird builds for each request and hands to the middleware, then to the route: its
/// core context, its connection, and the request's component once `RequestScopeMiddleware` has
/// opened it.
struct TodoRequestContext: RequestContext {
    /// Hummingbird's own state of the request: its logger, its route's parameters.
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on, which `FailureMiddleware` closes after a body too large.
    let channel: any Channel
    /// The request's component, set by `RequestScopeMiddleware`; routes read `scope`.
    var openedScope: RequestComponent?

    /// Hummingbird's context for a new request, before any middleware has run.
    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// The most bytes a body may have, which `request.decode(as:context:)` reads: a larger body
    /// throws `NIOTooManyBytesError`, which `FailureMiddleware` answers with 413.
    var maxUploadSize: Int { Limits.bodyBytes }

    /// The request's component, which `RequestScopeMiddleware` opened.
    ///
    /// The context holds it while the route runs, so the route need not: a module does not keep its
    /// component alive. It goes with the context when the route has returned, before the response
    /// is written.
    ///
    /// - Throws: `HTTPError(.internalServerError)` in a route that the middleware does not cover: a
    ///   mistake in `buildRouter`.
    var scope: RequestComponent {
        get throws(HTTPError) {
            guard let openedScope else {
                throw HTTPError(.internalServerError, message: "The route has no request scope.")
            }
            return openedScope
        }
    }
}
