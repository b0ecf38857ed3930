// swift-tools-version:6.0
import PackageDescription

// The libFuzzer targets, one executable each (Sources/<target>/), on the
// modules of the package one directory up, as its Package.swift builds them.
// Built with coverage for libFuzzer and AddressSanitizer in every Swift module:
//     swift build -c release --package-path Fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
// (`.ci/fuzz` does that, and runs them).
let larder: Target.Dependency = .product(name: "LarderModules", package: "Larder")

let package = Package(
    name: "LarderFuzz",
    dependencies: [.package(name: "Larder", path: "..")],
    targets: [
        // libFuzzer's driver, which each target's `main` runs.
        .target(name: "FuzzDriver"),
        .executableTarget(name: "json", dependencies: [larder, "FuzzDriver"]),
        .executableTarget(name: "frames", dependencies: [larder, "FuzzDriver"]),
        .executableTarget(name: "direct", dependencies: [larder, "FuzzDriver"]),
    ],
    swiftLanguageModes: [.v6]
)
