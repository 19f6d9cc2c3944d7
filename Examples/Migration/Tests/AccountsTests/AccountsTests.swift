import Dirk
import Testing

@testable import Accounts

/// The feature's tests cannot build the app: they host the feature with a component of their own.
final class FakeAccountsHost: Component, AccountsHost, @unchecked Sendable {
    func userName() -> String { "test-user" }
    func fetch(_ path: String) -> String { "1234" }
}

@Suite("The accounts feature, in its own module")
struct AccountsTests {
    @Test("the view model shows the host's user")
    func viewModelShowsTheUser() {
        let accounts = AccountsComponent().parent(FakeAccountsHost())
        #expect(accounts.accounts.viewModel().title == "test-user")
        #expect(accounts.accounts.viewModel().avatar() == "avatar of test-user")
    }

    @Test("the ledger is loaded once, asynchronously, from what the host fetches")
    func ledgerLoadsOnce() async {
        let accounts = AccountsComponent().parent(FakeAccountsHost())
        #expect(await accounts.accounts.ledger().balance == 4)
        #expect(await accounts.accounts.ledger().balance == 4)
    }

    @Test("the avatar cache lives while someone holds it, and a new one is built after")
    func avatarsAreWeak() {
        let accounts = AccountsComponent().parent(FakeAccountsHost())
        weak var released: (any Avatars)?
        var held: (any Avatars)? = accounts.accounts.avatars()
        released = held
        #expect(released === accounts.accounts.avatars())
        held = nil
        #expect(released == nil)
        _ = held
    }
}
