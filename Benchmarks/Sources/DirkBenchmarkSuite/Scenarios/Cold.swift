import Dirk
import Swinject

/// `cold`: building a new scope and resolving a 10-node graph in it for the first time, then
/// releasing the scope.
///
/// The graph (→ reads "needs"): `Root` → `Session`, `API`; `Session` (transient) → `Cache`,
/// `Store`; `Store` → `Database`, `API`; `API` → `HTTPClient`, `Repository`; `Repository`
/// (transient) → `Database`, `Cache`; `HTTPClient` → `Config`, `Logger`; `Cache` → `Logger`,
/// `Database`; `Logger` and `Database` → `Config`. Every node but the two transients is a
/// singleton of the scope. Dirk spreads the providers over two modules; Swinject registers all
/// ten services in a new container, as creating such a scope requires.
enum ColdScenario {
    final class Config: Sendable {}

    final class Logger: Sendable {
        let config: Config
        init(config: Config) { self.config = config }
    }

    final class Database: Sendable {
        let config: Config
        init(config: Config) { self.config = config }
    }

    final class Cache: Sendable {
        let logger: Logger
        let database: Database
        init(logger: Logger, database: Database) { (self.logger, self.database) = (logger, database) }
    }

    final class Repository: Sendable {
        let database: Database
        let cache: Cache
        init(database: Database, cache: Cache) { (self.database, self.cache) = (database, cache) }
    }

    final class HTTPClient: Sendable {
        let config: Config
        let logger: Logger
        init(config: Config, logger: Logger) { (self.config, self.logger) = (config, logger) }
    }

    final class API: Sendable {
        let client: HTTPClient
        let repository: Repository
        init(client: HTTPClient, repository: Repository) {
            (self.client, self.repository) = (client, repository)
        }
    }

    final class Store: Sendable {
        let database: Database
        let api: API
        init(database: Database, api: API) { (self.database, self.api) = (database, api) }
    }

    final class Session: Sendable {
        let cache: Cache
        let store: Store
        init(cache: Cache, store: Store) { (self.cache, self.store) = (cache, store) }
    }

    final class Root: Sendable {
        let session: Session
        let api: API
        init(session: Session, api: API) { (self.session, self.api) = (session, api) }
    }

    /// The hand-written baseline: lazy vars for the singletons, factory methods for the
    /// transients, none of them inlined.
    final class HandwrittenGraph {
        private lazy var storedConfig = Config()
        private lazy var storedLogger = Logger(config: config())
        private lazy var storedDatabase = Database(config: config())
        private lazy var storedCache = Cache(logger: logger(), database: database())
        private lazy var storedClient = HTTPClient(config: config(), logger: logger())
        private lazy var storedAPI = API(client: client(), repository: repository())
        private lazy var storedStore = Store(database: database(), api: api())
        private lazy var storedRoot = Root(session: session(), api: api())

        private init() {}

        /// Not inlined, so that the graph is a heap object as it is in real use.
        @inline(never)
        static func make() -> HandwrittenGraph {
            HandwrittenGraph()
        }

        @inline(never) func config() -> Config { storedConfig }
        @inline(never) func logger() -> Logger { storedLogger }
        @inline(never) func database() -> Database { storedDatabase }
        @inline(never) func cache() -> Cache { storedCache }
        @inline(never) func repository() -> Repository { Repository(database: database(), cache: cache()) }
        @inline(never) func client() -> HTTPClient { storedClient }
        @inline(never) func api() -> API { storedAPI }
        @inline(never) func store() -> Store { storedStore }
        @inline(never) func session() -> Session { Session(cache: cache(), store: store()) }
        @inline(never) func root() -> Root { storedRoot }
    }

    final class AppComponent: Component, @unchecked Sendable {
        var core: CoreModule { module() }
        var feature: FeatureModule { module() }
    }

    final class CoreModule: Module<AppComponent> {
        func config() -> Config { single { Config() } }
        func logger() -> Logger { single { c in Logger(config: c.core.config()) } }
        func database() -> Database { single { c in Database(config: c.core.config()) } }
        func cache() -> Cache { single { c in Cache(logger: c.core.logger(), database: c.core.database()) } }
        func repository() -> Repository {
            transient { c in Repository(database: c.core.database(), cache: c.core.cache()) }
        }
    }

    final class FeatureModule: Module<AppComponent> {
        func client() -> HTTPClient {
            single { c in HTTPClient(config: c.core.config(), logger: c.core.logger()) }
        }
        func api() -> API { single { c in API(client: c.feature.client(), repository: c.core.repository()) } }
        func store() -> Store { single { c in Store(database: c.core.database(), api: c.feature.api()) } }
        func session() -> Session {
            transient { c in Session(cache: c.core.cache(), store: c.feature.store()) }
        }
        func root() -> Root { single { c in Root(session: c.feature.session(), api: c.feature.api()) } }
    }

    static func makeContainer() -> Container {
        let container = Container()
        container.register(Config.self) { _ in Config() }.inObjectScope(.container)
        container.register(Logger.self) { r in Logger(config: r.resolve(Config.self)!) }
            .inObjectScope(.container)
        container.register(Database.self) { r in Database(config: r.resolve(Config.self)!) }
            .inObjectScope(.container)
        container.register(Cache.self) { r in
            Cache(logger: r.resolve(Logger.self)!, database: r.resolve(Database.self)!)
        }.inObjectScope(.container)
        container.register(Repository.self) { r in
            Repository(database: r.resolve(Database.self)!, cache: r.resolve(Cache.self)!)
        }.inObjectScope(.transient)
        container.register(HTTPClient.self) { r in
            HTTPClient(config: r.resolve(Config.self)!, logger: r.resolve(Logger.self)!)
        }.inObjectScope(.container)
        container.register(API.self) { r in
            API(client: r.resolve(HTTPClient.self)!, repository: r.resolve(Repository.self)!)
        }.inObjectScope(.container)
        container.register(Store.self) { r in
            Store(database: r.resolve(Database.self)!, api: r.resolve(API.self)!)
        }.inObjectScope(.container)
        container.register(Session.self) { r in
            Session(cache: r.resolve(Cache.self)!, store: r.resolve(Store.self)!)
        }.inObjectScope(.transient)
        container.register(Root.self) { r in
            Root(session: r.resolve(Session.self)!, api: r.resolve(API.self)!)
        }.inObjectScope(.container)
        return container
    }

    static var scenario: Scenario {
        Scenario(
            name: "cold",
            handwritten: {
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: HandwrittenGraph.make().root()) }
                    return sink
                }
            },
            dirk: {
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count {
                        // Held in a constant: modules do not keep their component alive.
                        let app = AppComponent()
                        sink &+= bits(of: app.feature.root())
                    }
                    return sink
                }
            },
            swinject: {
                return .serial { count in
                    var sink: UInt = 0
                    for _ in 0..<count { sink &+= bits(of: makeContainer().resolve(Root.self)!) }
                    return sink
                }
            })
    }
}
