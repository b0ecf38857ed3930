/// The entity models a store holds, and the model each entity belongs to.
/// Entity names are unique across models: records are addressed by entity alone.
struct EntityCatalog {
    private(set) var models: [ExactString: EntityModel] = [:]
    private var owners: [ExactString: String] = [:]

    init(models list: [EntityModel]) {
        for m in list { insert(m) }
    }

    mutating func insert(_ model: EntityModel) {
        if let old = models[ExactString(model.name)] {
            for e in old.entities { owners[ExactString(e.name)] = nil }
        }
        models[ExactString(model.name)] = model
        for e in model.entities { owners[ExactString(e.name)] = model.name }
    }

    func model(named name: String) -> EntityModel? { models[ExactString(name)] }

    /// The model that defines `entity`.
    func owner(of entity: String) -> String? { owners[ExactString(entity)] }

    /// The entity and its model.
    func lookup(_ entity: String) -> (model: EntityModel, entity: EntityDefinition)? {
        guard let owner = owners[ExactString(entity)], let model = models[ExactString(owner)],
              let e = model.entity(named: entity) else { return nil }
        return (model, e)
    }

    /// Models sorted by name.
    var sorted: [EntityModel] {
        models.values.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
