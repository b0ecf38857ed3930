import LarderJSON
import LarderStorage

/// What defining a model did.
public struct ModelDefinitionResult: Equatable, Sendable {
    /// True when the model did not exist before.
    public var created: Bool
    /// Entities that got a table.
    public var newEntities: [String]
    /// `Entity.member` for each attribute or relationship added to an existing entity.
    public var addedMembers: [String]
}

/// The entities: the models defined in the store (`entity.define`), the
/// records in their tables, and the records staged (`entity.stage`) until
/// they are applied.
final class EntityStore {
    let database: any SQLConnection
    let transactions: Transactions
    /// Entity models, read from the store on first use.
    private let catalog = Derived<EntityCatalog?>(nil)
    /// Entity records staged and applied, until their commit.
    let staging = EntityStaging()

    init(database: any SQLConnection, transactions: Transactions) {
        self.database = database
        self.transactions = transactions
        transactions.observe(catalog)
        transactions.observe(staging)
    }

    /// Entity records staged by `stage` and not yet applied or discarded.
    var staged: EntityBatch {
        _read { yield staging.staged }
        _modify { yield &staging.staged }
    }

    /// The models in the store, read once and kept until a rollback or another process's commit.
    func currentEntityCatalog() throws(StoreError) -> EntityCatalog {
        if let entityCatalog = catalog.value { return entityCatalog }
        let s = try database.statement("SELECT name, definition FROM entity_models ORDER BY name")
        var rows: [(String, String)] = []
        while try s.step() { rows.append((try s.string(0), try s.string(1))) }
        s.reset()
        var models: [EntityModel] = []
        for (name, text) in rows { models.append(try storedModel(name, definition: text)) }
        let read = EntityCatalog(models: models)
        catalog.value = read
        return read
    }

    /// A model as `define` stored it. Anything else is `.corrupt`: records
    /// read or written by a guessed definition would be wrong.
    private func storedModel(_ name: String, definition text: String) throws(StoreError) -> EntityModel {
        func corrupt(_ reason: String) -> StoreError { .corrupt(.entityModel(name), reason: reason) }
        let json: JSON
        do { json = try JSONParser.parse(text) } catch { throw corrupt("not JSON (\(error))") }
        let model: EntityModel
        do throws(StoreError) {
            model = try EntityModel(definition: json, stored: true)
        } catch {
            guard case .invalidArgument(let field, let reason) = error else { throw error }
            throw corrupt("\(field): \(reason)")
        }
        guard model.name == name else { throw corrupt("it defines model \(model.name)") }
        return model
    }

    /// An entity and its model; `.entityNotFound` when no model defines it.
    func entity(_ name: String) throws(StoreError) -> (model: EntityModel, entity: EntityDefinition) {
        guard let found = try currentEntityCatalog().lookup(name) else { throw .entityNotFound(name) }
        return found
    }

    /// Defines a model, or redefines it: new entities and optional attributes
    /// (and relationships) are added in place; any other change is refused with
    /// `.modelConflict` listing every change. The same definition again changes nothing.
    func define(_ model: EntityModel) throws(StoreError) -> ModelDefinitionResult {
        var result = ModelDefinitionResult(created: false, newEntities: [], addedMembers: [])
        if try currentEntityCatalog().model(named: model.name)?.json == model.json { return result }
        // What to create or add is decided holding the write lock, when
        // `beginWrite` has caught up with other processes: one may have
        // defined the model since the look above, and creating its tables a
        // second time would fail, dooming the whole burst's transaction.
        for (k, e) in model.entities.enumerated() { try EntityTable(entity: e).checkNames(database.dialect, field: "entities[\(k)]") }
        try transactions.begin()
        var current = try currentEntityCatalog()
        for (k, e) in model.entities.enumerated() {
            if let owner = current.owner(of: e.name), owner != model.name {
                throw .invalidArgument(field: "entities[\(k)].name", reason: "entity \(e.name) belongs to model \(owner); entity names are unique in a store")
            }
        }
        var statements: [String] = []
        if let old = current.model(named: model.name) {
            let revision = ModelRevision(from: old, to: model)
            guard revision.refused.isEmpty else { throw .modelConflict(model: model.name, changes: revision.refused) }
            if old.json == model.json { return result }
            for e in revision.newEntities { statements += EntityTable(entity: e).createStatements(database.dialect) }
            for (name, a) in revision.addedAttributes {
                statements.append(EntityTable(entity: model.entity(named: name)!).addColumn(a, database.dialect))
            }
            for (name, r) in revision.addedRelationships {
                statements += EntityTable(entity: model.entity(named: name)!).addRelationship(r, database.dialect)
            }
            result.newEntities = revision.newEntities.map(\.name)
            result.addedMembers = revision.addedAttributes.map { "\($0.entity).\($0.attribute.name)" }
                + revision.addedRelationships.map { "\($0.entity).\($0.relationship.name)" }
        } else {
            result.created = true
            for e in model.entities { statements += EntityTable(entity: e).createStatements(database.dialect) }
            result.newEntities = model.entities.map(\.name)
        }
        try transactions.atomically { () throws(StoreError) in
            for sql in statements { try database.execute(sql) }
            let s = try database.statement("INSERT INTO entity_models (name, definition) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET definition = excluded.definition")
            s.bind(1, model.name).bind(2, model.json.description)
            try s.run()
        }
        current.insert(model)
        catalog.value = current
        return result
    }

    /// Every model, sorted by name.
    func entityModels() throws(StoreError) -> [EntityModel] {
        try currentEntityCatalog().sorted
    }

    /// A record as JSON, with the relationships named by `include` nested; nil when there is none.
    func record(_ entity: String, id: JSON, include: [String] = []) throws(StoreError) -> JSON? {
        try records(entity, ids: [id], include: include)[0]
    }

    /// Records by identifier, in the order asked; nil for each that does not exist.
    func records(_ entity: String, ids: [JSON], include: [String] = []) throws(StoreError) -> [JSON?] {
        let (model, definition) = try self.entity(entity)
        let inclusion = try Inclusion(paths: include, from: definition, in: model)
        var keys: [ColumnValue] = []
        for (k, id) in ids.enumerated() {
            guard let key = definition.identifierValue(id) else {
                throw .invalidArgument(field: ids.count == 1 ? "id" : "ids[\(k)]",
                                       reason: "expected an identifier of \(entity) (\(definition.identifierAttribute.type.name)), got \(id.typeName)")
            }
            keys.append(key)
        }
        let renderer = EntityRenderer(database: database, model: model)
        try renderer.refuseIfLarger(definition, ids: keys, include: inclusion)
        var result: [JSON?] = []
        for key in keys { result.append(try renderer.record(definition, id: key, include: inclusion)) }
        return result
    }

    /// The records a query selects, as JSON.
    func query(_ entity: String, _ query: RecordQuery, include: [String] = []) throws(StoreError) -> [JSON] {
        let (model, definition) = try self.entity(entity)
        let inclusion = try Inclusion(paths: include, from: definition, in: model)
        let filter = try EntityFilter(query.conditions, entity: definition, dates: model.dateFormat, dialect: database.dialect)
        var clauses = filter.sql + " " + (try EntityFilter.ordering(query.orderBy, entity: definition))
        var bindings = filter.bindings
        if query.limit != nil || query.offset > 0 {
            clauses += " LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(query.limit ?? Int.max)), .integer(Int64(query.offset))]
        }
        let renderer = EntityRenderer(database: database, model: model)
        let rows = try renderer.rows(definition, clauses, bindings)
        try renderer.refuseIfLarger(definition, ids: rows.map { $0[definition.identifierIndex] }, include: inclusion)
        var result: [JSON] = []
        for row in rows { result.append(try renderer.render(definition, row: row, include: inclusion)) }
        return result
    }

    /// How many records match `conditions` (all records when nil).
    func count(_ entity: String, where conditions: JSON? = nil) throws(StoreError) -> Int {
        let (model, definition) = try self.entity(entity)
        let filter = try EntityFilter(conditions, entity: definition, dates: model.dateFormat, dialect: database.dialect)
        let s = try database.statement("SELECT count(*) FROM \(EntityTable(entity: definition).name) \(filter.sql)")
        defer { s.reset() }
        for (k, v) in filter.bindings.enumerated() { s.bind(Int32(k + 1), v) }
        guard try s.step() else { return 0 }
        return try s.int(0)
    }
}
