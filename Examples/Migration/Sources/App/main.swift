import Foundation
import Networking

// The app creates its components once, at launch, and keeps them.
let app = AppComponent.live()
let networking = NetworkingComponent.live()

// Sign-in creates the session's component and the home screen's below it; sign-out releases both.
let session = SessionComponent(userName: "ada").parent(app)
let home = HomeComponent().parent(session).parent(networking)
let dashboard = home.home.dashboard()
print(dashboard.greeting, "|", dashboard.headline, "|", dashboard.processors.joined(separator: ", "))

let accounts = home.accounts()
print(accounts.accounts.viewModel().avatar())
print(networking.network.openURL()(URL(string: "https://example.com")!))
print(HomePreview.dashboard().headline)

let ledger = Task { await accounts.accounts.ledger().balance }
print("ledger:", await ledger.value)
