import LarderJSON

/// Everything measured in one run, rendered as a table or as JSON.
final class Report {
    /// A figure's relation to its floor from the same run.
    struct Ratio {
        enum Kind { case share, multiple }
        /// `.share`: figure / floor for rates (1 = as fast as the floor);
        /// `.multiple`: figure / floor for latencies (1 = as quick as the floor).
        var kind: Kind
        var value: Double
        var floor: String
    }

    /// One measured series: a rate, perhaps latencies, perhaps a ratio to a floor.
    struct Row {
        var key: String
        var label: String
        var opsPerSecond: Spread?
        var latency: Latency?
        var ratio: Ratio?
        var note: String?
    }

    /// A single figure that is not a rate (cold start, RSS, bytes per entry).
    struct Figure {
        var key: String
        var label: String
        var value: Spread
        var unit: String
        var decimals: Int
        var note: String?
    }

    struct Section {
        var title: String
        var rows: [Row] = []
        var figures: [Figure] = []
    }

    struct Target {
        var name: String
        var measured: String
        var goal: String
        var met: Bool
    }

    var machine: Machine
    var plan: Plan
    var larderPath = ""
    var larderVersion = "?"
    var sections: [Section] = []
    var targets: [Target] = []
    var seconds = 0.0
    /// /proc/loadavg at the end of the run.
    var loadAverage = "?"
    var pinStrict = true
    /// Where larder kept its stores.
    var store = ""
    /// Parts asked for but not run on this store, and why.
    var skipped: [(part: String, reason: String)] = []

    init(machine: Machine, plan: Plan) {
        self.machine = machine
        self.plan = plan
    }

    func section(_ title: String) -> Int {
        if let k = sections.firstIndex(where: { $0.title == title }) { return k }
        sections.append(Section(title: title))
        return sections.count - 1
    }

    func add(_ row: Row, to title: String) {
        sections[section(title)].rows.append(row)
        Progress.note("  " + Self.line(row).trimmingCharacters(in: " "))
    }

    func add(_ figure: Figure, to title: String) {
        sections[section(title)].figures.append(figure)
        Progress.note("  " + Self.line(figure).trimmingCharacters(in: " "))
    }

    func row(_ key: String) -> Row? {
        for s in sections { if let r = s.rows.first(where: { $0.key == key }) { return r } }
        return nil
    }

    func figure(_ key: String) -> Figure? {
        for s in sections { if let f = s.figures.first(where: { $0.key == key }) { return f } }
        return nil
    }

    // MARK: - Table

    static let labelWidth = 54

    func table() -> String {
        var out = "Larder benchmark (\(plan.mode) mode)\n"
        out += "machine: \(machine.processors) × \(machine.cpuModel) (nproc \(machine.processors)), \(machine.kernel), SQLite \(machine.sqlite)\n"
        out += "load:    \(loadAverage) (1/5/15 min, at the end; other processes skew every figure)\n"
        out += "larder:  \(larderVersion) at \(larderPath)\n"
        out += "store:   \(store)\n"
        out += "plan:    \(Format.count(plan.ops)) ops per repetition of a pipelined series (window \(Format.count(plan.window)) requests), "
        out += "\(Format.count(plan.strictOps)) per strict series (other counts are marked); median of \(plan.reps) repetitions "
        out += "(strict series and 10 KiB writes: \(plan.strictReps)) with (min – max); keys 16 B; took \(Format.fixed(seconds, 1)) s\n"
        out += "strict:  one request at a time; \(pinStrict ? "the bench and the child pinned to one CPU (see --no-pin)" : "not pinned: latencies depend on where the kernel wakes each process")\n"
        out += "ratios:  rates as a share of their floor (1.00 = floor speed); latencies as a multiple of the floor's (1.00 = floor latency)\n\n"
        out += Self.pad("workload", Self.labelWidth) + Self.lpad("ops/s", 11) + "  " + Self.pad("(min – max)", 23)
            + Self.lpad("p50 µs", 9) + Self.lpad("p99 µs", 9) + Self.lpad("p999 µs", 9) + "  vs floor\n"
        for s in sections {
            out += "\n" + s.title + "\n"
            for r in s.rows { out += Self.line(r) + "\n" }
            for f in s.figures { out += Self.line(f) + "\n" }
        }
        if !skipped.isEmpty {
            out += "\nskipped on this store\n"
            for s in skipped { out += "  " + Self.pad(s.part, 12) + s.reason + "\n" }
        }
        if !targets.isEmpty {
            out += "\ntargets\n"
            for t in targets {
                out += "  " + Self.pad(t.name, Self.labelWidth - 2) + Self.pad(t.measured, 34) + Self.pad(t.goal, 22) + (t.met ? "met" : "MISSED") + "\n"
            }
        }
        return out
    }

    static func line(_ r: Row) -> String {
        var s = "  " + pad(r.label, labelWidth - 2)
        if let rate = r.opsPerSecond {
            s += lpad(Format.count(rate.median), 11) + "  " + pad("(\(Format.count(rate.min)) – \(Format.count(rate.max)))", 23)
        } else {
            s += lpad("—", 11) + "  " + pad("", 23)
        }
        if let l = r.latency {
            s += lpad(Format.fixed(l.p50.median, 1), 9) + lpad(Format.fixed(l.p99.median, 1), 9) + lpad(Format.fixed(l.p999.median, 1), 9)
        } else {
            s += lpad("", 27)
        }
        if let ratio = r.ratio {
            s += "  " + Format.fixed(ratio.value, ratio.value < 0.095 ? 3 : 2) + (ratio.kind == .share ? " of " : "× ") + ratio.floor
        }
        if let note = r.note { s += (r.ratio == nil ? "  " : "; ") + note }
        return s
    }

    static func line(_ f: Figure) -> String {
        var s = "  " + pad(f.label, labelWidth - 2)
        s += lpad(Format.fixed(f.value.median, f.decimals) + " " + f.unit, 16)
        if f.value.min != f.value.max {
            s += "  (" + Format.fixed(f.value.min, f.decimals) + " – " + Format.fixed(f.value.max, f.decimals) + ")"
        }
        if let note = f.note { s += "  " + note }
        return s
    }

    static func pad(_ s: String, _ width: Int) -> String {
        let n = s.unicodeScalars.count
        return n >= width ? s + " " : s + String(repeating: " ", count: width - n)
    }

    static func lpad(_ s: String, _ width: Int) -> String {
        let n = s.unicodeScalars.count
        return n >= width ? " " + s : String(repeating: " ", count: width - n) + s
    }

    // MARK: - JSON

    func json() -> String {
        func spread(_ s: Spread, _ decimals: Int) -> JSON {
            ["median": Format.number(s.median, decimals), "min": Format.number(s.min, decimals), "max": Format.number(s.max, decimals)]
        }
        var sectionList: [JSON] = []
        for s in sections {
            var rows: [JSON] = []
            for r in s.rows {
                var o = JSONObject()
                o.append("key", .string(r.key))
                o.append("label", .string(r.label))
                if let rate = r.opsPerSecond { o.append("opsPerSecond", spread(rate, 0)) }
                if let l = r.latency {
                    o.append("latencyMicroseconds", ["p50": spread(l.p50, 2), "p99": spread(l.p99, 2), "p999": spread(l.p999, 2)])
                }
                if let ratio = r.ratio {
                    o.append("ratio", ["value": Format.number(ratio.value, 4),
                                       "kind": .string(ratio.kind == .share ? "shareOfFloorRate" : "multipleOfFloorLatency"),
                                       "floor": .string(ratio.floor)])
                }
                if let note = r.note { o.append("note", .string(note)) }
                rows.append(.object(o))
            }
            var figures: [JSON] = []
            for f in s.figures {
                var o = JSONObject()
                o.append("key", .string(f.key))
                o.append("label", .string(f.label))
                o.append("value", spread(f.value, 3))
                o.append("unit", .string(f.unit))
                if let note = f.note { o.append("note", .string(note)) }
                figures.append(.object(o))
            }
            sectionList.append(["title": .string(s.title), "rows": .array(rows), "figures": .array(figures)])
        }
        let root: JSON = [
            "mode": .string(plan.mode),
            "machine": ["nproc": .int(machine.processors), "cpu": .string(machine.cpuModel),
                        "kernel": .string(machine.kernel), "sqlite": .string(machine.sqlite)],
            "larder": ["path": .string(larderPath), "version": .string(larderVersion)],
            "store": .string(store),
            "skipped": .array(skipped.map { ["part": .string($0.part), "reason": .string($0.reason)] }),
            "plan": ["ops": .int(plan.ops), "strictOps": .int(plan.strictOps), "reps": .int(plan.reps),
                     "strictReps": .int(plan.strictReps), "window": .int(plan.window), "warmup": .int(plan.warmup),
                     "scaleTiers": .array(plan.scaleTiers.map { .int($0) })],
            "seconds": Format.number(seconds, 1),
            "loadAverage": .string(loadAverage),
            "strictPinnedToOneCPU": .bool(pinStrict),
            "sections": .array(sectionList),
            "targets": .array(targets.map {
                ["name": .string($0.name), "measured": .string($0.measured), "goal": .string($0.goal), "met": .bool($0.met)]
            }),
        ]
        return root.description
    }
}
