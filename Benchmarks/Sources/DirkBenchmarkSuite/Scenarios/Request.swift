import Dirk
import Swinject

/// `request`: the per-request work of a server handler. One operation creates a request scope
/// under a long-lived application scope, resolves from it a transient handler, and returns what
/// the handler computes.
///
/// The application scope holds two cached singletons, a `Store` and a client-like `Client`, both
/// resolved before timing, and nothing per request. The request scope carries the request's id
/// and user name. Its handler (transient) needs the request's context (one per resolution, Dirk's
/// `scoped`), which needs the application's client, and the application's store. Dirk's request
/// component holds the id and name as `let`s, has two modules and registers the application
/// component with `.parent(app)`; Swinject creates `Container(parent:)` and registers the
/// request's two services in it, capturing the id and name; the hand-written request is an object
/// that holds the application, the id and the name.
enum RequestScenario {
    /// The user name every request carries: short enough to be stored inline, as most are.
    static let userName = "ada"

    final class Store: Sendable {}

    final class Client: Sendable {}

    final class RequestContext: Sendable {
        let requestID: Int
        let userName: String
        let client: Client

        init(requestID: Int, userName: String, client: Client) {
            (self.requestID, self.userName, self.client) = (requestID, userName, client)
        }
    }

    final class Handler: Sendable {
        let context: RequestContext
        let store: Store

        init(context: RequestContext, store: Store) {
            (self.context, self.store) = (context, store)
        }

        /// The handler's work: a value computed from everything it was given. The same code runs
        /// for every implementation.
        @inline(never)
        func respond() -> UInt {
            UInt(bitPattern: context.requestID) &+ UInt(context.userName.utf8.count)
                &+ bits(of: context.client) &+ bits(of: store)
        }
    }

    /// The hand-written application scope: the singletons as lazy vars.
    final class HandwrittenApp {
        private lazy var storedStore = Store()
        private lazy var storedClient = Client()

        @inline(never)
        func store() -> Store {
            storedStore
        }

        @inline(never)
        func client() -> Client {
            storedClient
        }
    }

    /// The hand-written request scope: holds the application, the id and the name, and builds a
    /// new context for each handler.
    final class HandwrittenRequest {
        let app: HandwrittenApp
        let requestID: Int
        let userName: String

        private init(app: HandwrittenApp, requestID: Int, userName: String) {
            (self.app, self.requestID, self.userName) = (app, requestID, userName)
        }

        /// Not inlined, so that the request is a heap object as it is in real use.
        @inline(never)
        static func make(app: HandwrittenApp, requestID: Int, userName: String) -> HandwrittenRequest {
            HandwrittenRequest(app: app, requestID: requestID, userName: userName)
        }

        @inline(never)
        func context() -> RequestContext {
            RequestContext(requestID: requestID, userName: userName, client: app.client())
        }

        @inline(never)
        func handler() -> Handler {
            Handler(context: context(), store: app.store())
        }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var services: ServicesModule { module() }
    }

    final class ServicesModule: Module<AppComponent> {
        func store() -> Store { single { Store() } }
        func client() -> Client { single { Client() } }
    }

    final class RequestComponent: Component, @unchecked Sendable {
        let requestID: Int
        let userName: String

        init(requestID: Int, userName: String) {
            (self.requestID, self.userName) = (requestID, userName)
            super.init()
        }

        var app: AppComponent { parent() }
        var request: RequestModule { module() }
        var handlers: HandlerModule { module() }
    }

    final class RequestModule: Module<RequestComponent> {
        func context() -> RequestContext {
            scoped { c in
                RequestContext(requestID: c.requestID, userName: c.userName, client: c.app.services.client())
            }
        }
    }

    final class HandlerModule: Module<RequestComponent> {
        func handler() -> Handler {
            transient { c in Handler(context: c.request.context(), store: c.app.services.store()) }
        }
    }

    static var scenario: Scenario {
        Scenario(
            name: "request",
            handwritten: {
                let app = HandwrittenApp()
                _ = (app.store(), app.client())
                return .serial { count in
                    var sink: UInt = 0
                    for requestID in 0..<count {
                        let request = HandwrittenRequest.make(
                            app: app, requestID: requestID, userName: userName)
                        sink &+= request.handler().respond()
                    }
                    return sink
                }
            },
            dirk: {
                let app = AppComponent()
                _ = (app.services.store(), app.services.client())
                return .serial { count in
                    var sink: UInt = 0
                    for requestID in 0..<count {
                        let request = RequestComponent(requestID: requestID, userName: userName).parent(app)
                        sink &+= request.handlers.handler().respond()
                    }
                    return sink
                }
            },
            swinject: {
                let app = Container()
                app.register(Store.self) { _ in Store() }.inObjectScope(.container)
                app.register(Client.self) { _ in Client() }.inObjectScope(.container)
                _ = (app.resolve(Store.self)!, app.resolve(Client.self)!)
                return .serial { count in
                    var sink: UInt = 0
                    for requestID in 0..<count {
                        let request = Container(parent: app)
                        request.register(RequestContext.self) { r in
                            RequestContext(
                                requestID: requestID, userName: userName, client: r.resolve(Client.self)!)
                        }.inObjectScope(.graph)
                        request.register(Handler.self) { r in
                            Handler(context: r.resolve(RequestContext.self)!, store: r.resolve(Store.self)!)
                        }.inObjectScope(.transient)
                        sink &+= request.resolve(Handler.self)!.respond()
                    }
                    return sink
                }
            })
    }
}
