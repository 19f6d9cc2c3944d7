import Accounts
import Dirk
import Networking

/// What the home screen shows.
final class Dashboard {
    let greeting: String
    let headline: String
    let processors: [String]

    init(greeting: String, headline: String, processors: [String]) {
        self.greeting = greeting
        self.headline = headline
        self.processors = processors
    }
}

/// The signed-in home screen: the component below everything it uses. Its parents are the
/// session (and through it the app) and the networking feature's component, so its providers use
/// the app's, the session's and the feature's. In Factory every container extension reached
/// every other; in Dirk a parent never refers to its children, so the app's component cannot use
/// a feature's providers, and code that needs both lives here.
final class HomeComponent: Component, @unchecked Sendable {
    var session: SessionComponent { parent() }
    var networking: NetworkingComponent { parent() }
    var home: HomeModule { module() }

    /// Opens the accounts feature, which finds this component as its host.
    func accounts() -> AccountsComponent { AccountsComponent().parent(self) }
}

final class HomeModule: Module<HomeComponent> {
    func dashboard() -> Dashboard {
        transient { c in
            Dashboard(
                greeting: "Hello, \(c.session.session.session().userName)",
                headline: c.networking.network.network().fetch("/news"),
                processors: c.session.app.catalog.processors().map(\.name))
        }
    }
}

/// What the accounts feature needs, given by the component that has it: Factory's `promised()`
/// factories, registered by the app, become this conformance, checked by the compiler.
extension HomeComponent: AccountsHost {
    func userName() -> String { session.session.session().userName }
    func fetch(_ path: String) -> String { networking.network.network().fetch(path) }
}
