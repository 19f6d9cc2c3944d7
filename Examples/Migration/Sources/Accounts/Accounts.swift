import Dirk

/// What the accounts feature needs from the app: Factory's `promised()` factories, which the app
/// registered in `autoRegister()`. A method the app does not implement does not compile.
public protocol AccountsHost: AnyObject, Sendable {
    func userName() -> String
    func fetch(_ path: String) -> String
}

/// Caches avatars while a screen shows them: Factory's `.shared` scope, of a protocol type that a
/// test replaces.
public protocol Avatars: AnyObject, Sendable {
    func avatar(for user: String) -> String
}

final class AvatarCache: Avatars {
    func avatar(for user: String) -> String { "avatar of \(user)" }
}

/// Loaded asynchronously: Factory's demo wrapped this initializer in an `AsyncWrapper`.
public struct Ledger: Sendable {
    public let balance: Int

    init(host: any AccountsHost) async {
        balance = host.fetch("/ledger").count
    }
}

public final class AccountsViewModel {
    public let title: String
    public let avatars: Provider<any Avatars>

    init(title: String, avatars: Provider<any Avatars>) {
        self.title = title
        self.avatars = avatars
    }

    /// Gets the live cache each time, as `@WeakLazyInjected` did, and keeps it only while it runs.
    public func avatar() -> String { avatars().avatar(for: title) }
}

public final class AccountsComponent: Component, @unchecked Sendable {
    var host: any AccountsHost { ancestor() }
    public var accounts: AccountsModule { module() }
}

public final class AccountsModule: Module<AccountsComponent> {
    public func avatars() -> any Avatars {
        weak {
            AvatarCache() as any Avatars
        } object: {
            $0
        }
    }

    public func ledger() async -> Ledger { await single { c in await Ledger(host: c.host) } }

    public func viewModel() -> AccountsViewModel {
        transient { c in
            AccountsViewModel(
                title: c.host.userName(), avatars: c.provider { $0.accounts.avatars() })
        }
    }
}
