/// One cell: its host and its key there.
package struct CellReference: @unchecked Sendable {
    // Shared between threads: the host guards its cells under its own lock, and the key is a value.
    package let host: any CellHost
    package let key: CellKey

    package init(host: any CellHost, key: CellKey) {
        self.host = host
        self.key = key
    }

    /// What `body` returns for the cell, run under its host's lock with the host's serials; nil when
    /// the host holds no cell there, which never happens while a build is under way in it: a host
    /// drops a cell only once its build has ended.
    package func withMachine<Result>(_ body: (inout OnceStateMachine, inout UInt64) -> Result) -> Result? {
        var result: Result?
        _ = host.withCell(key) { result = body(&$0, &$1) }
        return result
    }

    /// The cell's build of generation `generation`, as the wait graph sees it.
    func target(_ generation: UInt64, forConfiguration: Bool = false) -> WaitTarget {
        WaitTarget(host: host, key: key, generation: generation, forConfiguration: forConfiguration)
    }
}
