import Dirk
import Networking

@testable import App

/// What Factory's test target added to `Container` (mocks registered in a `setUp` helper): an
/// extension in the test target that builds the components with fakes.
extension HomeComponent {
    /// A home screen for `user`, on a network whose every answer is `answer`.
    static func testing(user: String = "test-user", answer: String = "offline") -> HomeComponent {
        let networking = NetworkingComponent().overriding {
            $0.network.network()
        } with: {
            FixedNetwork(answer: answer)
        }
        let session = SessionComponent(userName: user).parent(AppComponent.live())
        return HomeComponent().parent(session).parent(networking)
    }
}

struct FixedNetwork: NetworkType {
    let answer: String

    func fetch(_ path: String) -> String { answer }
}
