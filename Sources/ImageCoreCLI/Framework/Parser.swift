/// The parsed command line of one subcommand, with typed accessors that validate a value
/// once and fail with a usage error (exit 2) naming the option.
struct ParsedArguments {
    let command: String
    /// Values by long option name, in the order given; a flag has one empty value per use.
    var values: [String: [String]] = [:]
    var positionals: [String] = []

    func flag(_ name: String) -> Bool { values[name] != nil }

    func string(_ name: String) -> String? { values[name]?.last }

    func strings(_ name: String) -> [String] { values[name] ?? [] }

    func has(_ name: String) -> Bool { values[name] != nil }

    /// An integer option within `range`, or `defaultValue` when absent.
    func int(_ name: String, default defaultValue: Int, _ range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let text = string(name) else { return defaultValue }
        return try Self.int(text, option: name, range)
    }

    func int(_ name: String, _ range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = string(name) else { return nil }
        return try Self.int(text, option: name, range)
    }

    static func int(_ text: String, option: String, _ range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let v = Int(text), range.contains(v) else {
            throw .usage("--\(option) \(text): expected a whole number from \(range.lowerBound) to \(range.upperBound == .max ? "∞" : String(range.upperBound))")
        }
        return v
    }

    func double(_ name: String, _ range: ClosedRange<Double>) throws(CLIError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let v = Double(text), v.isFinite, range.contains(v) else {
            throw .usage("--\(name) \(text): expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return v
    }

    /// One of `choices` (case-insensitive), or `defaultValue`.
    func choice(_ name: String, _ choices: [String], default defaultValue: String) throws(CLIError) -> String {
        guard let text = string(name) else { return defaultValue }
        let lower = text.lowercased()
        guard choices.contains(lower) else { throw .usage("--\(name) \(text): expected \(choices.joined(separator: ", "))") }
        return lower
    }

    /// A byte count with an optional K, M or G suffix (powers of 1024).
    func bytes(_ name: String) throws(CLIError) -> Int? {
        guard let text = string(name) else { return nil }
        var digits = Substring(text.uppercased())
        var unit = 1
        if let last = digits.last, let u = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30][String(last)] {
            unit = u
            digits = digits.dropLast()
        }
        guard let v = Int(digits), v >= 1, v <= Int.max / unit else {
            throw .usage("--\(name) \(text): expected a byte count ≥ 1, e.g. 512M")
        }
        return v * unit
    }
}

/// Splits `arguments` (after the subcommand's name) by `spec`: `--name value`, `--name=value`,
/// `-s value`, flags, `--` (only positionals after it) and `-` (a positional: stdin/stdout).
func parseArguments(_ arguments: [String], for spec: CommandSpec) throws(CLIError) -> ParsedArguments {
    var parsed = ParsedArguments(command: spec.name)
    let options = spec.allOptions
    var i = 0
    var onlyPositionals = false
    while i < arguments.count {
        let arg = arguments[i]
        i += 1
        if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
            parsed.positionals.append(arg)
            continue
        }
        if arg == "--" { onlyPositionals = true; continue }
        var name = arg
        var inline: String? = nil
        let option: OptionSpec?
        if arg.hasPrefix("--") {
            name = String(arg.dropFirst(2))
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            option = options.first { $0.long == name }
        } else {
            let letters = arg.dropFirst()
            guard let first = letters.first else { throw .usage("unexpected '\(arg)'") }
            option = options.first { $0.short == first }
            if letters.count > 1 { inline = String(letters.dropFirst()) }
        }
        guard let option else {
            throw .usage("\(spec.name): unknown option '\(arg)'; see 'imagecore \(spec.name) --help'")
        }
        if option.isFlag {
            guard inline == nil else { throw .usage("--\(option.long) takes no value") }
            parsed.values[option.long, default: []].append("")
            continue
        }
        let value: String
        if let inline { value = inline } else {
            guard i < arguments.count else { throw .usage("--\(option.long) needs a value (\(option.value!))") }
            value = arguments[i]
            i += 1
        }
        if option.repeatable { parsed.values[option.long, default: []].append(value) } else { parsed.values[option.long] = [value] }
    }
    if parsed.flag("help") { return parsed }
    try checkPositionals(parsed.positionals, spec)
    return parsed
}

private func checkPositionals(_ given: [String], _ spec: CommandSpec) throws(CLIError) {
    let required = spec.positionals.filter { !$0.optional }.count
    let unbounded = spec.positionals.contains { $0.many }
    if given.count < required {
        let missing = spec.positionals.filter { !$0.optional }[given.count...].map { "<\($0.name)>" }.joined(separator: " ")
        throw .usage("\(spec.name): missing \(missing); see 'imagecore \(spec.name) --help'")
    }
    if !unbounded && given.count > spec.positionals.count {
        throw .usage("\(spec.name): unexpected argument '\(given[spec.positionals.count])'; see 'imagecore \(spec.name) --help'")
    }
}
