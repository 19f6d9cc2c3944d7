// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DirkServerExample",
    // The example's own stores use `Mutex` (the `Synchronization` module), which needs macOS 15;
    // Dirk and Hummingbird 2 need less.
    platforms: [.macOS(.v15)],
    dependencies: [
        // `name:` lets the product below say `package: "Dirk"` whatever the clone's folder is
        // called: a path dependency's identity is otherwise its directory's name.
        .package(name: "Dirk", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        // `HTTPField.Name`, for the `X-User` header; Hummingbird depends on it too.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "TodoServer",
            dependencies: [
                .product(name: "Dirk", package: "Dirk"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "TodoServerTests",
            dependencies: [
                "TodoServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
