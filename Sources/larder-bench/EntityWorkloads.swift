import LarderJSON
import LarderSystem

/// Entities: a Band / Album model in snake_case, written with
/// `entity.upsert` (and with `entity.stage` + one `entity.apply`) in calls of
/// `recordsPerCall` records, bands first, then albums linking to them; read
/// back with `entity.get` including the albums and `entity.query` by band and
/// date. Every write repetition starts from a fresh store.
extension Benchmark {
    static let entityModel = #"{"model":"Music","casing":"snake_case","dateFormat":"iso8601","entities":["#
        + #"{"name":"Band","identifier":"id","attributes":{"id":"integer","name":"string","formed":"integer"},"#
        + #""relationships":[{"name":"albums","destination":"Album","toMany":true,"inverse":"band","deleteRule":"cascade"}]},"#
        + #"{"name":"Album","identifier":"id","attributes":{"id":"integer","title":"string","released":"date"},"#
        + #""relationships":[{"name":"band","destination":"Band","inverse":"albums"}]}]}"#

    /// The write rate the entity store aims at (records/s).
    static let entityTarget = 50_000.0

    func measureEntities() {
        let bands = plan.entityBands
        let albums = bands * plan.albumsPerBand
        let total = bands + albums
        let perCall = plan.recordsPerCall
        let title = "entities: Band + Album (to-one band, inverse albums), snake_case; \(Format.count(bands)) bands × "
            + "\(plan.albumsPerBand) albums = \(Format.count(total)) records in calls of \(Format.count(perCall)), \(plan.callWindow) in flight, "
            + "fresh store per write repetition"
        Progress.note(title)
        let upserts = entityWriteBatch("entity.upsert", bands: bands, perCall: perCall)
        let stages = entityWriteBatch("entity.stage", bands: bands, perCall: perCall)
        measureEntityUpsertFloor(model: Self.entityModel, upserts: upserts, records: total)
        let target = { (rate: Spread) in
            Report.Ratio(kind: .share, value: rate.median / Self.entityTarget, floor: "target (\(Format.count(Self.entityTarget)) records/s)")
        }

        // entity.upsert: each call its own transaction. The last store stays for the reads.
        var upsertRates: [Double] = []
        var kept: LarderSession?
        for rep in 0..<plan.modelReps {
            let s = session("entities-upsert-\(rep)")
            s.call("entity.define", params: Self.entityModel)
            let ns = s.driver.pipelined(upserts, window: plan.callWindow)
            s.driver.requireNoProblems("entity.upsert")
            upsertRates.append(Statistics.rate(total, ns))
            requireEntityCounts(s, bands: bands, albums: albums)
            if rep == plan.modelReps - 1 { kept = s } else { discard(s) }
        }
        let upsertRate = Spread(upsertRates)
        report.add(Report.Row(key: "entities.upsert", label: "entity.upsert, records/s",
                              opsPerSecond: upsertRate,
                              ratio: floors.entityUpsert.map { Report.Ratio(kind: .share, value: upsertRate.median / $0.median, floor: "storage floor entity.upsert") },
                              note: "\(Format.fixed(upsertRate.median / Self.entityTarget, 2)) of the target (\(Format.count(Self.entityTarget)) records/s)"),
                   to: title)

        // entity.stage of everything, then one entity.apply (one transaction, links in pass 2).
        var stageRates: [Double] = []
        var applyShares: [Double] = []
        for rep in 0..<plan.modelReps {
            let s = session("entities-stage-\(rep)")
            s.call("entity.define", params: Self.entityModel)
            let stageNs = s.driver.pipelined(stages, window: plan.callWindow)
            s.driver.requireNoProblems("entity.stage")
            let t0 = MonotonicClock.nanoseconds()
            let r = s.call("entity.apply", params: "{}")
            let applyNs = MonotonicClock.nanoseconds() - t0
            guard r["inserted"]?.numberValue?.int == total, r["linked"]?.numberValue?.int == albums,
                  r["unresolved"]?.numberValue?.int == 0 else {
                Progress.fail("entity.apply should have inserted \(total) records and linked \(albums), answered \(r)")
            }
            stageRates.append(Statistics.rate(total, stageNs + applyNs))
            applyShares.append(Double(applyNs) / Double(stageNs + applyNs))
            requireEntityCounts(s, bands: bands, albums: albums)
            discard(s)
        }
        let stageRate = Spread(stageRates)
        report.add(Report.Row(key: "entities.stageApply", label: "entity.stage × \(upserts.count) + one entity.apply, records/s",
                              opsPerSecond: stageRate, ratio: target(stageRate),
                              note: "apply \(Format.fixed(Spread(applyShares).median * 100, 0))% of the time"), to: title)

        // Reads on the last upserted store.
        guard let s = kept else { return }
        defer { discard(s) }
        let ops = plan.entityReadOps
        let gets = entityReadBatch("entity.get", count: ops, bands: bands, seed: 71) { b, band in
            b.append(text: #"{"entity":"Band","id":"#)
            b.append(int: band)
            b.append(text: #","include":["albums"]}"#)
        }
        let queries = entityReadBatch("entity.query", count: ops, bands: bands, seed: 72) { b, band in
            b.append(text: #"{"entity":"Album","where":{"band":"#)
            b.append(int: band)
            b.append(text: #","released":{"gte":"1990-01-01T00:00:00Z"}},"orderBy":["-released"]}"#)
        }
        let readsLabel = "\(Format.count(ops)) ops"
        let getRate = Statistics.rates(reps: plan.reps) { _ in (gets.count, s.driver.pipelined(gets, window: plan.window)) }
        s.driver.requireNoProblems("entity.get")
        report.add(Report.Row(key: "entities.get.include", label: "entity.get Band include albums (\(readsLabel))",
                              opsPerSecond: getRate, note: "random bands, \(plan.albumsPerBand) albums nested"), to: title)
        let queryRate = Statistics.rates(reps: plan.reps) { _ in (queries.count, s.driver.pipelined(queries, window: plan.window)) }
        s.driver.requireNoProblems("entity.query")
        report.add(Report.Row(key: "entities.query.where", label: "entity.query where band, released ≥ (\(readsLabel))",
                              opsPerSecond: queryRate, note: "Albums of random bands, ordered by -released"), to: title)
    }

    /// Every band and album stored, and every album linked to its band.
    private func requireEntityCounts(_ s: LarderSession, bands: Int, albums: Int) {
        func count(_ params: String) -> Int { s.call("entity.count", params: params)["count"]?.numberValue?.int ?? -1 }
        let b = count(#"{"entity":"Band"}"#)
        let a = count(#"{"entity":"Album"}"#)
        let unlinked = count(#"{"entity":"Album","where":{"band":{"isNull":true}}}"#)
        guard b == bands, a == albums, unlinked == 0 else {
            Progress.fail("expected \(bands) bands and \(albums) albums, all linked; the store holds \(b) bands and \(a) albums, \(unlinked) unlinked")
        }
    }

    /// Bands 1...bands, then their albums (album 9(k−1)+j+1 belongs to band k),
    /// in calls of `perCall` records of one entity each.
    func entityWriteBatch(_ method: String, bands: Int, perCall: Int) -> RequestBatch {
        let perBand = plan.albumsPerBand
        let albums = bands * perBand
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: bands * 60 + albums * 100, requests: (bands + albums) / perCall + 2)
        func calls(_ entity: String, _ count: Int, _ record: (inout [UInt8], Int) -> Void) {
            var start = 0
            while start < count {
                let end = min(start + perCall, count)
                encoder.request(&batch, method) { b in
                    b.append(text: #"{"entity":""# + entity + #"","records":["#)
                    for k in start..<end {
                        if k != start { b.append(UInt8(ascii: ",")) }
                        record(&b, k)
                    }
                    b.append(text: "]}")
                }
                start = end
            }
        }
        calls("Band", bands) { b, k in
            b.append(text: #"{"id":"#)
            b.append(int: k + 1)
            b.append(text: #","name":"Band "#)
            b.append(int: k + 1)
            b.append(text: #"","formed":"#)
            b.append(int: 1950 + k % 60)
            b.append(UInt8(ascii: "}"))
        }
        calls("Album", albums) { b, k in
            let band = k / perBand + 1
            b.append(text: #"{"id":"#)
            b.append(int: k + 1)
            b.append(text: #","title":"Album "#)
            b.append(int: k + 1)
            b.append(text: #"","released":"#)
            b.append(date: 1960 + (band + 3 * (k % perBand)) % 60, 1 + k % 12, 1 + k % 28)
            b.append(text: #","band":"#)
            b.append(int: band)
            b.append(UInt8(ascii: "}"))
        }
        return batch
    }

    /// `count` requests, each about a band drawn uniformly from 1...bands.
    func entityReadBatch(_ method: String, count: Int, bands: Int, seed: UInt64, _ params: (inout [UInt8], Int) -> Void) -> RequestBatch {
        var rng = SplitMix64(seed: seed)
        var encoder = RequestEncoder()
        var batch = RequestBatch(reservingBytes: count * 150, requests: count)
        for _ in 0..<count {
            let band = rng.below(bands) + 1
            encoder.request(&batch, method) { b in params(&b, band) }
        }
        return batch
    }
}
