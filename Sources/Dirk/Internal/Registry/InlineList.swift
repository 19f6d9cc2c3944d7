/// A list whose first element is kept inline, so that the common list of one (a component's only
/// module, a resolution's only `scoped` instance) allocates nothing; later elements go to an array.
struct InlineList<Element> {
    private var first: Element?
    private var rest: [Element] = []

    init() {}

    var isEmpty: Bool { first == nil }

    mutating func append(_ element: Element) {
        if first == nil { first = element } else { rest.append(element) }
    }

    /// Removes every element for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        rest.removeAll(where: shouldRemove)
        if let current = first, shouldRemove(current) {
            first = rest.isEmpty ? nil : rest.removeFirst()
        }
    }

    /// Calls `modify` with the first element for which `predicate` is true, if any; returns
    /// whether there was one.
    mutating func modifyFirst(where predicate: (Element) -> Bool, _ modify: (inout Element) -> Void) -> Bool {
        if first != nil, predicate(first!) {
            modify(&first!)
            return true
        }
        guard let index = rest.firstIndex(where: predicate) else { return false }
        modify(&rest[index])
        return true
    }

    /// The first element for which `predicate` is true.
    func first(where predicate: (Element) -> Bool) -> Element? {
        if let first, predicate(first) { return first }
        return rest.first(where: predicate)
    }

    /// The elements, in order.
    var elements: [Element] {
        guard let first else { return [] }
        return [first] + rest
    }

    /// Calls `body` with every element, in order.
    func forEachElement(_ body: (Element) -> Void) {
        guard let first else { return }
        body(first)
        for element in rest { body(element) }
    }
}
