/// The man page (section 1, roff), generated from the declarations.
enum ManPage {
    static func render(_ commands: [CommandSpec], version: String) -> String {
        var s = ".TH IMAGECORE 1 \"\" \"imagecore \(version)\" \"User Commands\"\n"
        s += ".SH NAME\nimagecore \\- fast, memory-frugal image tools built on ImageCore\n"
        s += ".SH SYNOPSIS\n.B imagecore\n.I subcommand\n[\\fIoptions\\fR]\n"
        s += ".SH DESCRIPTION\nResults go to standard output; errors and progress go to standard error "
        s += "(progress only on a terminal). A file that fails is reported on one line naming it.\n"
        s += ".SH SUBCOMMANDS\n"
        for c in commands {
            s += ".SS \(esc(c.name))\n\(esc(c.abstract))\n.PP\n.B \(esc(Help.usage(c)))\n"
            if !c.discussion.isEmpty { s += ".PP\n\(esc(c.discussion))\n" }
            for p in c.positionals { s += ".TP\n.I \(esc(p.name))\n\(esc(p.help))\n" }
            for o in c.options {
                s += ".TP\n.B \(esc(Help.optionLabel(o).trimmingSpaces))\n\(esc(Help.optionHelp(o)))\n"
            }
        }
        s += ".SH EXIT STATUS\n\(esc(ExitStatus.helpText))\n"
        s += ".SH ENVIRONMENT\n.TP\n.B IC_MAX_PIXELS\nDefault for \\-\\-max\\-pixels.\n"
        s += ".TP\n.B IC_NUM_THREADS\nDefault thread count of the C core (\\-\\-threads overrides it).\n"
        return s
    }

    /// Escapes roff: backslashes, leading dots and quotes, and hyphens (as minus signs).
    static func esc(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "-": out += "\\-"
            default: out.append(c)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}

extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
