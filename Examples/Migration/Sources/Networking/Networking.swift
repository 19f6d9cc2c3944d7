import Dirk
import Foundation

/// Fetches what the app shows.
public protocol NetworkType: Sendable {
    func fetch(_ path: String) -> String
}

struct LiveNetwork: NetworkType {
    func fetch(_ path: String) -> String { "live \(path)" }
}

/// Answers every request the same way, for a launch with `-mockNetwork`: what Factory's
/// `networkSetup()` registered on the app's behalf.
struct CannedNetwork: NetworkType {
    func fetch(_ path: String) -> String { "canned \(path)" }
}

/// The feature's own component: the app creates one beside its own, and the screens that use the
/// feature have both as parents. A Factory container extension in this module becomes this
/// component's modules, since a package cannot add modules to the app's component.
public final class NetworkingComponent: Component, @unchecked Sendable {
    public var network: NetworkModule { module() }

    /// The component as the app launches it: with `-mockNetwork`, every request gets a canned
    /// answer. Where Factory's `onArg` chose inside the container, the code that builds the
    /// component chooses, once.
    public static func live(arguments: [String] = ProcessInfo.processInfo.arguments) -> NetworkingComponent {
        let component = NetworkingComponent()
        guard arguments.contains("-mockNetwork") else { return component }
        return component.overriding {
            $0.network.network()
        } with: {
            CannedNetwork()
        }
    }
}

public final class NetworkModule: Module<NetworkingComponent> {
    /// Built as the protocol, so that a test can override it with any `NetworkType`.
    public func network() -> any NetworkType { single { LiveNetwork() as any NetworkType } }

    /// Function injection: a `Factory<(URL) -> Bool>` becomes a provider of a `@Sendable`
    /// closure, which every caller shares.
    public func openURL() -> @Sendable (URL) -> Bool { single { { url in url.scheme == "https" } } }
}
