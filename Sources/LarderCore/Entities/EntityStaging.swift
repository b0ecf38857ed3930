/// Entity records staged by `entity.stage` and not yet applied, and the
/// batches applied in the open transaction: a batch whose apply is rolled
/// back is staged again, ahead of what was staged since, so that a failed
/// commit loses nothing the client staged.
final class EntityStaging: TransactionObserver {
    var staged = EntityBatch()
    /// Applied in the open transaction, oldest first.
    var applied: [EntityBatch] = []

    func transactionDidCommit() { applied = [] }

    func transactionDidRollBack() {
        guard !applied.isEmpty else { return }
        var restored = EntityBatch()
        for batch in applied { restored.append(batch) }
        restored.append(staged)
        staged = restored
        applied = []
    }

    /// Another process's commit changes nothing of what this client staged.
    func storeChanged(elsewhere changes: ChangeRecord) {}
}
