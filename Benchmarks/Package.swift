// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "DirkBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Dirk", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject.git", exact: "2.10.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", exact: "1.6.1"),
    ],
    targets: [
        .executableTarget(
            name: "DirkBenchmarks",
            dependencies: [
                .product(name: "Dirk", package: "Dirk"),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        )
    ]
)
