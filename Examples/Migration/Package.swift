// swift-tools-version: 6.0
import PackageDescription

// The result of migrating a Factory app to Dirk: an app and two feature modules, each a target,
// with their tests. Docs/Dirk.docc/Migration/FromFactory.md explains each pattern.
let package = Package(
    name: "DirkMigrationExample",
    platforms: [.macOS(.v10_15), .iOS(.v13)],
    dependencies: [
        // `name:` lets the products below say `package: "Dirk"` whatever the clone's folder is
        // called: a path dependency's identity is otherwise its directory's name.
        .package(name: "Dirk", path: "../..")
    ],
    targets: [
        // A feature that the app uses: Factory's Networking module.
        .target(name: "Networking", dependencies: [.product(name: "Dirk", package: "Dirk")]),
        // A feature that needs the app: what Factory's `promised()` factories did.
        .target(name: "Accounts", dependencies: [.product(name: "Dirk", package: "Dirk")]),
        .executableTarget(
            name: "App", dependencies: ["Networking", "Accounts", .product(name: "Dirk", package: "Dirk")]),
        .testTarget(name: "AppTests", dependencies: ["App", "Networking", "Accounts"]),
        .testTarget(
            name: "AccountsTests", dependencies: ["Accounts", .product(name: "Dirk", package: "Dirk")]),
    ]
)
