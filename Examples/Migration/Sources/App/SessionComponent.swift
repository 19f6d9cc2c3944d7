import Dirk

/// The signed-in user's state: what a Factory custom scope, reset at sign-out, cached.
final class Session: Sendable {
    let userName: String

    init(userName: String) {
        self.userName = userName
    }
}

/// Factory's custom `session` scope: a component created at sign-in, with the app's component as
/// its parent, and released at sign-out, with everything it cached. Nothing above it refers to it:
/// what needs the session is this component or one below it.
final class SessionComponent: Component, @unchecked Sendable {
    let userName: String

    init(userName: String) {
        self.userName = userName
        super.init()
    }

    var app: AppComponent { parent() }
    var session: SessionModule { module() }
}

final class SessionModule: Module<SessionComponent> {
    func session() -> Session { single { c in Session(userName: c.userName) } }
}
