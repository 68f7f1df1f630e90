/// `--help` text, generated from the declarations.
enum Help {
    static let width = 100

    static func usage(_ c: CommandSpec) -> String {
        var parts = ["imagecore", c.name]
        for p in c.positionals {
            let n = "<\(p.name)>" + (p.many ? " ..." : "")
            parts.append(p.optional ? "[\(n)]" : n)
        }
        parts.append("[options]")
        return parts.joined(separator: " ")
    }

    static func optionLabel(_ o: OptionSpec) -> String {
        var s = o.short.map { "-\($0), " } ?? "    "
        s += "--\(o.long)"
        if let v = o.value { s += " <\(v)>" }
        return s
    }

    static func optionHelp(_ o: OptionSpec) -> String {
        var h = o.help
        if case .choices(let c) = o.completion, !h.contains(c[0]) { h += " (\(c.joined(separator: "|")))" }
        if let d = o.defaultText { h += " (default: \(d))" }
        if o.repeatable { h += " May be repeated." }
        return h
    }

    static func command(_ c: CommandSpec) -> String {
        var out = "OVERVIEW: \(c.abstract)\n\n"
        if !c.discussion.isEmpty { out += wrap(c.discussion, indent: 0) + "\n\n" }
        out += "USAGE: \(usage(c))\n\n"
        if !c.positionals.isEmpty {
            out += "ARGUMENTS:\n"
            for p in c.positionals { out += row("  <\(p.name)>", p.help) }
            out += "\n"
        }
        out += "OPTIONS:\n"
        for o in c.allOptions { out += row("  " + optionLabel(o), optionHelp(o)) }
        out += "\nEXIT STATUS: \(ExitStatus.helpText)\n"
        return out
    }

    static func root(_ commands: [CommandSpec], version: String) -> String {
        var out = "OVERVIEW: Fast, memory-frugal image tools built on ImageCore \(version).\n\n"
        out += "USAGE: imagecore <subcommand> [options]\n\n"
        out += "OPTIONS:\n"
        out += row("  --version", "Print the version.")
        out += row("  -h, --help", "Show this help; 'imagecore help <subcommand>' or '<subcommand> --help' for one command.")
        out += row("  --generate-completion-script <shell>", "Print a completion script for bash, zsh or fish.")
        out += row("  --generate-manual", "Print the man page (roff).")
        out += "\nSUBCOMMANDS:\n"
        for c in commands { out += row("  " + c.name, c.abstract) }
        out += "\nResults go to standard output, errors and progress to standard error (progress only on a terminal).\n"
        out += "EXIT STATUS: \(ExitStatus.helpText)\n"
        return out
    }

    /// A label column of 34 characters and the wrapped help beside it.
    static func row(_ label: String, _ help: String) -> String {
        let col = 34
        let text = wrap(help, indent: col)
        if label.count >= col - 1 { return label + "\n" + String(repeating: " ", count: col) + text + "\n" }
        return label + String(repeating: " ", count: col - label.count) + text + "\n"
    }

    /// Wraps `text` at `width`, continuation lines indented by `indent`.
    static func wrap(_ text: String, indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && indent + line.count + 1 + word.count > width {
                lines.append(line)
                line = String(word)
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
    }
}
