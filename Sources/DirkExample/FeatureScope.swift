import Dirk

/// The scope of the profile screen: made when the screen opens, dropped when it closes.
final class FeatureComponent: Component, @unchecked Sendable {
    var session: SessionComponent { parent() }
    /// Not registered here: `parent()` finds it as the session's parent.
    var app: AppComponent { parent() }
    @MainActor var screen: ProfileScreenModule { module() }
}

/// The screen's objects belong to the main actor, so they need not be `Sendable`: a
/// `MainActorModule`'s `single` keeps any object, since it never leaves the main actor.
final class ProfileScreenModule: MainActorModule<FeatureComponent> {
    /// The presenter and its view refer to each other, so `configure:` connects them once
    /// both exist (setter injection).
    func presenter() -> ProfilePresenter {
        single(
            { c in ProfilePresenter(tracker: c.app.analytics.tracker()) },
            configure: { presenter, c in presenter.view = c.screen.view() })
    }

    func view() -> ProfileView {
        single({ _ in ProfileView() }, configure: { view, c in view.presenter = c.screen.presenter() })
    }

    /// A new view model on every refresh.
    func viewModel() -> ProfileViewModel {
        transient { c in
            ProfileViewModel(
                profile: c.session.account.me(), loader: c.screen.loader(),
                context: c.screen.requestContext())
        }
    }

    func loader() -> ProfileLoader {
        transient { c in ProfileLoader(client: c.app.network.client(), context: c.screen.requestContext()) }
    }

    /// One per resolution: a view model and its loader share it; the next view model gets a new one.
    func requestContext() -> RequestContext { scoped { RequestContext() } }
}

extension SessionComponent {
    /// Opens the profile screen; the caller owns the component and drops it when the screen closes.
    func openProfileScreen() -> FeatureComponent {
        FeatureComponent().parent(self)
    }
}
