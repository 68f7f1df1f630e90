/// The declarations a command is made of: its options and positional arguments, each with
/// its help text and how a shell completes its value. `--help`, the shell completions and
/// the man page are all generated from these (see `Help.swift`, `Completions.swift`,
/// `ManPage.swift`), so they cannot drift from what the parser accepts.
///
/// Our own parser instead of swift-argument-parser: on Linux that package imports
/// FoundationEssentials, which loads Foundation's libraries and ICU data into every run
/// (see the README, "Command line", for the figures).

/// How a shell completes a value.
enum Completion: Equatable, Sendable {
    case none
    case file
    case directory
    case choices([String])
}

/// One `--long` option (optionally with `-s`): a flag when `value` is nil, otherwise it takes
/// one value (the next argument, or `--long=value`).
struct OptionSpec: Sendable {
    var long: String
    var short: Character? = nil
    /// The value's placeholder in help (`N`, `WxH`, `FILE`); nil for a flag.
    var value: String? = nil
    var help: String
    /// Shown as "(default: …)" in help.
    var defaultText: String? = nil
    var completion: Completion = .none
    /// May be given more than once (all values kept); otherwise the last one wins.
    var repeatable: Bool = false

    var isFlag: Bool { value == nil }

    static func flag(_ long: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, value: nil, help: help)
    }

    static func value(_ long: String, short: Character? = nil, _ placeholder: String, _ help: String,
                      default defaultText: String? = nil, completion: Completion = .none) -> OptionSpec {
        OptionSpec(long: long, short: short, value: placeholder, help: help, defaultText: defaultText, completion: completion)
    }
}

/// A positional argument; `many` takes every remaining one.
struct PositionalSpec: Sendable {
    var name: String
    var help: String
    var many: Bool = false
    var optional: Bool = false
    var completion: Completion = .file
}

/// A subcommand: its declarations and what runs it. `run` returns the exit status.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var positionals: [PositionalSpec] = []
    var options: [OptionSpec] = []
    var run: @Sendable (ParsedArguments) throws(CLIError) -> Int32

    /// Every option the command accepts, `--help` included.
    var allOptions: [OptionSpec] { options + [.flag("help", short: "h", "Show this help.")] }
}

/// Exit statuses, the same for every command (printed in `--help` and the man page).
enum ExitStatus {
    static let ok: Int32 = 0
    /// Some files failed (the others were done).
    static let failures: Int32 = 1
    /// The command line is wrong; nothing was touched.
    static let usage: Int32 = 2

    static let helpText = "0 every file done; 1 some files failed (each reported on one line); 2 usage error (nothing touched)."
}

/// A command-line error: usage errors exit 2 before any file is touched; the others are a
/// file's failure (exit 1).
enum CLIError: Error {
    case usage(String)
    case failed(String)

    var message: String {
        switch self {
        case .usage(let m), .failed(let m): m
        }
    }
}
