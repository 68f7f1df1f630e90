// swift-tools-version:6.0
//
// ImageCore: a C core of image kernels behind ~Copyable Swift buffers.
//
// No target of the library product uses unsafe build flags (they would make the package unusable
// as a versioned dependency). libjpeg-turbo (libjpeg and TurboJPEG), libspng and Little CMS are found with pkg-config through system-library
// targets; OpenMP's runtime is linked by name and called through its GOMP entry points,
// because -fopenmp would be an unsafe flag (see README, "Threading").
import PackageDescription

let package = Package(
    name: "ImageCore",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "ImageCore", targets: ["ImageCore"]),
        .executable(name: "imagecore", targets: ["ImageCoreCLI"]),
        .executable(name: "bench", targets: ["bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]
        ),
        .systemLibrary(
            name: "CLibJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]
        ),
        .systemLibrary(
            name: "CSpng",
            pkgConfig: "spng",
            providers: [.apt(["libspng-dev"]), .brew(["libspng"])]
        ),
        .systemLibrary(
            name: "CLcms2",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]
        ),
        // The library links libjpeg, libspng and Little CMS, and TurboJPEG for one thing only:
        // tjTransform, the lossless rotate (jpeg_transform.c); elsewhere TurboJPEG is the tests'
        // and the bench's reference.
        .target(
            name: "CImageCore",
            dependencies: ["CLibJPEG", "CTurboJPEG", "CSpng", "CLcms2"],
            cSettings: [
                .define("IC_OMP_RUNTIME", .when(platforms: [.linux])),
                .define("_GNU_SOURCE", .when(platforms: [.linux])),
            ],
            linkerSettings: [
                .linkedLibrary("omp5", .when(platforms: [.linux])),
                .linkedLibrary("m", .when(platforms: [.linux])),
                .linkedLibrary("jpeg"),
                .linkedLibrary("turbojpeg"),
                .linkedLibrary("spng"),
                .linkedLibrary("lcms2"),
            ]
        ),
        .target(
            name: "ImageCore",
            dependencies: ["CImageCore"]
        ),
        // Deterministic synthetic images for the bench and the tests (not in the product).
        .target(
            name: "ImageCoreSynthetic",
            dependencies: ["ImageCore"]
        ),
        // The CLI has its own small argument parser: swift-argument-parser imports
        // FoundationEssentials on Linux, which costs every run start-up time and memory.
        .executableTarget(
            name: "ImageCoreCLI",
            dependencies: ["ImageCore", "CImageCore"]
        ),
        .executableTarget(
            name: "bench",
            dependencies: [
                "ImageCore", "CImageCore", "CTurboJPEG", "CSpng", "ImageCoreSynthetic",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "bench",
            exclude: ["peers"]
        ),
        .testTarget(
            name: "ImageCoreTests",
            dependencies: ["ImageCore", "CImageCore", "CTurboJPEG", "CLibJPEG", "CSpng", "CLcms2", "ImageCoreSynthetic"],
            resources: [.copy("Fixtures")]
        ),
    ]
)
