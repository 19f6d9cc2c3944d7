import Dirk
import Foundation

// Each component is an ordinary object: whoever owns the scope owns the component.
let app = AppComponent().contributeMenu().startRecordingDependencies()

print(
    """
    Each line shows the strategy at work, the call, and what it returned. `Store#1` is the first
    Store this run built, `Store#2` the second: the same name and number is the same instance.
    """)

section("Application (AppComponent)")
show("single", "storage.store(), twice", app.storage.store(), app.storage.store())
show("single", "network.client()", app.network.client())
show("single", "analytics.tracker().client", app.analytics.tracker().client)
var images: ImageCache? = app.storage.images()
show("weak", "storage.images(), twice while held", images!, app.storage.images())
images = nil
show("weak", "storage.images(), after release", app.storage.images())

section("Sign-in: ada (SessionComponent, parent AppComponent)")
var session: SessionComponent? = app.signIn(userID: "ada")
show(
    "single(key:)", "account.profile(id: \"ada\"), twice", session!.account.profile(id: "ada"),
    session!.account.profile(id: "ada"))
show("single(key:)", "account.profile(id: \"bob\")", session!.account.profile(id: "bob"))
show("single(key:)", "account.me()", session!.account.me(), session!.account.me().source)

section("Profile screen (FeatureComponent, parent SessionComponent)")
do {
    let feature = session!.openProfileScreen()
    show("parent", "feature.app is the grandparent app", feature.app === app)
    let first = feature.screen.viewModel()
    let second = feature.screen.viewModel()
    show("transient", "screen.viewModel(), twice", first, second)
    show("scoped", "first: its context, its loader's", first.context, first.loader.context)
    show("scoped", "second: its context, its loader's", second.context, second.loader.context)
    show(
        "scoped", "screen.requestContext(), twice", feature.screen.requestContext(),
        feature.screen.requestContext())
    let presenter = feature.screen.presenter()
    let view = feature.screen.view()
    show("configure:", "presenter(), its view", presenter, presenter.view!)
    show("configure:", "view(), its presenter", view, view.presenter!)
    show("single", "presenter's tracker is the app's", presenter.tracker === app.analytics.tracker())
    let loader = feature.mainActorLazy { $0.screen.loader() }
    show("lazy", "screen.mainActorLazy { loader() }.value, twice", loader.value, loader.value)
    let viewModels = feature.mainActorProvider { $0.screen.viewModel() }
    show("provider", "screen.mainActorProvider { viewModel() }(), twice", viewModels(), viewModels())
    show(
        "fresh", "storage.fresh { store() }, then store()", app.storage.fresh { $0.store() },
        app.storage.store())
}  // The screen closes: the feature component and its instances go.

section("Refresh: session.reset() drops what the session cached")
session!.reset()
show("single(key:)", "account.me(), after reset", session!.account.me())
show("single", "app's storage.store(), untouched", app.storage.store())

section("Extras: key-path injection and contributions")
let settings = SettingsScreen()
settingsInjection.inject(into: settings, from: app)
show("injector", "settings screen's store and tracker", settings.store!, settings.tracker!)
let menuSession = app.signIn(userID: "cy").contributeMenu()
show(
    "contribute", "every MenuItem, built (app's, then session's)",
    menuSession.resolveContributions(of: MenuItem.self).map(\.title).joined(separator: ", "))
let mainItems = menuSession.contributions(of: MenuItem.self)
    .filter { $0.metadata(as: Placement.self)?.section == "main" }
show(
    "contribute", "keys of those placed in \"main\", unbuilt", mainItems.map(\.key).joined(separator: ", "))

section("Sign-out: drop the session")
weak var signedOut = session
session = nil
show("lifetime", "the session is released", signedOut == nil)
let bob = app.signIn(userID: "bob")
show("single(key:)", "new session: account.me()", bob.account.me())
show("single", "app's storage.store(), still", app.storage.store())

section("Offline mode: NetworkModule replaced by StubNetworkModule")
let offline = AppComponent().module(NetworkModule.self) { StubNetworkModule($0) }
show("stub", "network.client()", offline.network.client())
show("single", "storage.store() of this app", offline.storage.store())
// Keep each component in a variable: a module does not keep its component alive, so
// `offline.signIn(userID: "ada").account.me()` would stop the program.
let offlineSession = offline.signIn(userID: "ada")
show("single(key:)", "account.me() of a session", offlineSession.account.me().source)

section("Insight: a trace and the application's dependency graph")
let traced = app.signIn(userID: "dee")
let screen = traced.openProfileScreen()
let (_, trace) = screen.trace { screen.screen.viewModel() }
print(trace.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
let graph = app.dependencyGraph()
let graphFile = FileManager.default.temporaryDirectory.appendingPathComponent("dirk-example.dot")
try? graph.graphviz.write(to: graphFile, atomically: true, encoding: .utf8)
show(
    "graph", "AppComponent's graph", "\(graph.nodes.count) providers called so far",
    "\(graph.dependencies.count) dependencies recorded since startRecordingDependencies()")
print("  Graphviz file: \(graphFile.path) (draw it with `dot -Tsvg`)")
