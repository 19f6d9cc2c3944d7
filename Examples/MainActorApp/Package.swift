// swift-tools-version: 6.2
import PackageDescription

// An app whose UI target is main-actor by default, as a new Xcode 26 app target is: `App` and its
// tests set `.defaultIsolation(MainActor.self)`; `Core`, its services, is nonisolated like any
// package. README.md lists every isolation annotation that Dirk asked of `App`.
let mainActorByDefault: [SwiftSetting] = [
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

let package = Package(
    name: "DirkMainActorAppExample",
    // Observation, which the view models use, needs macOS 14 and iOS 17.
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        // `name:` lets the products below say `package: "Dirk"` whatever the clone's folder is
        // called: a path dependency's identity is otherwise its directory's name.
        .package(name: "Dirk", path: "../..")
    ],
    targets: [
        // The services: no Dirk, no UI, nonisolated.
        .target(name: "Core"),
        .executableTarget(
            name: "App", dependencies: ["Core", .product(name: "Dirk", package: "Dirk")],
            swiftSettings: mainActorByDefault),
        .testTarget(
            name: "AppTests", dependencies: ["App", "Core", .product(name: "Dirk", package: "Dirk")],
            swiftSettings: mainActorByDefault),
    ]
)
