import ImageCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One input file and where it was found: `root` is the folder argument it came from ("" for
/// a file named directly), so `{reldir}` can mirror a tree.
struct InputFile: Hashable {
    var path: String
    var reldir: String = "."
}

/// The inputs of a command: named files, folders (their image files; all subfolders with
/// `-r`) and `--files-from` lists.
enum Inputs {
    /// Expands `paths` and the `--files-from` lists. `accept` says which file names in a
    /// folder are inputs (by extension).
    static func collect(_ paths: [String], filesFrom: [String], recursive: Bool,
                        accept: (String) -> Bool) throws(CLIError) -> [InputFile] {
        var named = paths
        for list in filesFrom { named += try readList(list) }
        var out: [InputFile] = []
        for p in named {
            var st = stat()
            if p != "-", stat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                let before = out.count
                walk(p, rel: ".", recursive: recursive, accept: accept, into: &out)
                if out.count == before {
                    throw .failed("\(p): no image files in this folder\(recursive ? " or its subfolders" : " (-r for subfolders)")")
                }
            } else {
                out.append(InputFile(path: p))
            }
        }
        return out
    }

    /// A list of paths, one per line or NUL-separated (if the text has a NUL).
    static func readList(_ path: String) throws(CLIError) -> [String] {
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path: path == "-" ? "/dev/stdin" : path) } catch {
            throw .usage("--files-from \(path): \(error.detail ?? error.name)")
        }
        let separator: UInt8 = bytes.contains(0) ? 0 : UInt8(ascii: "\n")
        return bytes.split(separator: separator).compactMap { line in
            var l = line[...]
            if separator != 0, l.last == UInt8(ascii: "\r") { l = l.dropLast() }
            return l.isEmpty ? nil : String(decoding: l, as: UTF8.self)
        }
    }

    private static func walk(_ dir: String, rel: String, recursive: Bool, accept: (String) -> Bool, into out: inout [InputFile]) {
        guard let d = opendir(dir) else { out.append(InputFile(path: dir)); return }
        var files: [String] = [], folders: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue } // hidden files, our own temporaries, . and ..
            let full = Folders.join(dir, name)
            var st = stat()
            guard stat(full, &st) == 0 else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR { if recursive { folders.append(name) } } else if accept(name) { files.append(name) }
        }
        closedir(d)
        for f in files.sorted() { out.append(InputFile(path: Folders.join(dir, f), reldir: rel)) }
        for f in folders.sorted() {
            walk(Folders.join(dir, f), rel: rel == "." ? f : rel + "/" + f, recursive: recursive, accept: accept, into: &out)
        }
    }
}

/// An output name template: `{dir}/{stem}.thumb.jpg`.
struct OutputTemplate {
    let text: String
    static let placeholders = ["dir", "name", "stem", "ext", "reldir"]

    init(_ text: String) throws(CLIError) {
        self.text = text
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw .usage("--output \(text): unclosed '{'") }
            let key = String(rest[rest.index(after: open)..<close])
            guard Self.placeholders.contains(key) else {
                throw .usage("--output \(text): unknown placeholder {\(key)}; use \(Self.placeholders.map { "{\($0)}" }.joined(separator: " "))")
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// `-o` without braces: a folder, the default name inside it under `{reldir}`.
    static func folder(_ dir: String, defaultName: String) throws(CLIError) -> OutputTemplate {
        try OutputTemplate(Folders.join(dir, "{reldir}/" + defaultName))
    }

    func expand(_ input: InputFile) -> String {
        let name = input.path.split(separator: "/").last.map(String.init) ?? input.path
        let dot = name.lastIndex(of: ".")
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
        let values = ["dir": Folders.parent(of: input.path), "name": name, "stem": stem, "ext": ext, "reldir": input.reldir]
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            out += values[String(rest[rest.index(after: open)..<close])] ?? ""
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return Self.normalize(out)
    }

    /// Removes `./` segments and doubled slashes ("./a//b" → "a/b"), keeping a leading "/".
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/").filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// Whether a file name looks like this template's own output (the name part of the
    /// template, placeholders as wildcards), when that part has literal text beyond the
    /// extension, e.g. `{stem}.thumb.jpg` matches `x.thumb.jpg`.
    func looksLikeOutput(_ fileName: String) -> Bool {
        let last = text.split(separator: "/").last.map(String.init) ?? text
        var literals: [String] = []
        var rest = Substring(last)
        var current = ""
        while let c = rest.first {
            if c == "{", let close = rest.firstIndex(of: "}") {
                literals.append(current); current = ""
                rest = rest[rest.index(after: close)...]
            } else {
                current.append(c); rest = rest.dropFirst()
            }
        }
        literals.append(current)
        let letters = literals.joined()
        guard letters.filter({ $0 != "." }).count > 4 else { return false } // only an extension: cannot tell
        return Self.glob(literals, Substring(fileName))
    }

    private static func glob(_ literals: [String], _ s: Substring) -> Bool {
        guard let first = literals.first else { return s.isEmpty }
        if literals.count == 1 { return s == first[...] }
        guard s.hasPrefix(first) else { return false }
        var rest = s.dropFirst(first.count)
        let tail = literals.dropFirst()
        if tail.count == 1 { return rest.hasSuffix(tail.first!) }
        while true {
            if glob(Array(tail), rest) { return true }
            if rest.isEmpty { return false }
            rest = rest.dropFirst()
        }
    }
}
