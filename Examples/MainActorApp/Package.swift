// swift-tools-version: 6.2
import PackageDescription

// An app as a new Xcode 26 project makes it: one app target, main-actor by default, with its
// services, screens and previews in it, and its tests. Both targets set
// `.defaultIsolation(MainActor.self)` and the upcoming features a new app target sets. README.md
// lists every isolation annotation that Dirk asks of the app, and why.
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
        .executableTarget(
            name: "App", dependencies: [.product(name: "Dirk", package: "Dirk")],
            swiftSettings: mainActorByDefault),
        .testTarget(
            name: "AppTests", dependencies: ["App", .product(name: "Dirk", package: "Dirk")],
            swiftSettings: mainActorByDefault),
    ]
)
