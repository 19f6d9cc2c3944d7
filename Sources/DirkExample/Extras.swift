import Dirk

/// A screen that a storyboard would make: Dirk fills its properties through an injector.
final class SettingsScreen {
    var store: Store!
    var tracker: Tracker!
}

/// Which properties of a settings screen come from which providers, declared once.
let settingsInjection = Injector<SettingsScreen, AppComponent>()
    .injecting(\.store) { $0.storage.store() }
    .injecting(\.tracker) { $0.analytics.tracker() }

/// Something several scopes add to: the application's menu.
struct MenuItem: Sendable {
    let title: String
}

/// Where a menu item goes, known before the item is built.
struct Placement: Sendable {
    let section: String
}

extension AppComponent {
    /// The menu items every user sees.
    func contributeMenu() -> AppComponent {
        contribute(MenuItem.self, key: "about", metadata: Placement(section: "help")) { _ in
            MenuItem(title: "About")
        }
        .contribute(MenuItem.self, key: "settings", metadata: Placement(section: "main")) { _ in
            MenuItem(title: "Settings")
        }
    }
}

extension SessionComponent {
    /// The menu items of a signed-in user, added to the application's.
    func contributeMenu() -> SessionComponent {
        contribute(MenuItem.self, key: "profile", metadata: Placement(section: "main")) { session in
            MenuItem(title: "Profile of \(session.userID)")
        }
    }
}
