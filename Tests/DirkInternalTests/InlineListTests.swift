import Dirk
import Testing

@Suite("The list that keeps its first elements inline")
struct InlineListTests {
    @Test("elements come back in the order they were appended, however many there are", arguments: 0...6)
    func order(count: Int) {
        var list = InlineList<Int>()
        for number in 0..<count { list.append(number) }
        #expect(list.elements == Array(0..<count))
        #expect(list.isEmpty == (count == 0))
    }

    @Test("removeAll(where:) keeps the order of what stays, inline or not", arguments: 0...6)
    func removal(count: Int) {
        var list = InlineList<Int>()
        for number in 0..<count { list.append(number) }
        list.removeAll { $0 % 2 == 0 }
        #expect(list.elements == Array(0..<count).filter { $0 % 2 == 1 })
        list.append(100)
        #expect(list.elements.last == 100)
    }

    @Test("first(where:) finds the first match, wherever it lies, and nil when none matches")
    func firstMatch() {
        var list = InlineList<Int>()
        for number in [1, 2, 3, 2, 5] { list.append(number) }
        #expect(list.first(where: { $0 == 1 }) == 1)
        #expect(list.first(where: { $0 > 1 }) == 2)
        #expect(list.first(where: { $0 > 3 }) == 5)
        #expect(list.first(where: { $0 > 5 }) == nil)
    }

    @Test(
        "removeAll(where:) keeps the other elements in order, whichever places the removed ones held",
        arguments: 0..<6)
    func removalKeepsOrder(count: Int) {
        for removed in 0..<(1 << count) {
            var list = InlineList<Int>()
            for number in 0..<count { list.append(number) }
            list.removeAll { removed & (1 << $0) != 0 }
            let kept = (0..<count).filter { removed & (1 << $0) == 0 }
            #expect(list.elements == kept)
            #expect(list.isEmpty == kept.isEmpty)
            list.append(100)
            #expect(list.elements == kept + [100])
        }
    }

    @Test("removeAllElements() hands over every element and leaves the list empty")
    func handingOver() {
        var list = InlineList<Int>()
        for number in 0..<5 { list.append(number) }
        let taken = list.removeAllElements()
        #expect(taken.elements == [0, 1, 2, 3, 4])
        #expect(list.isEmpty && list.elements.isEmpty)
    }

    @Test(
        "removeUniquelyReferenced() releases what only the list refers to and keeps the rest in order",
        arguments: 0..<6)
    func droppingUnreferencedElements(count: Int) {
        final class Element {
            let number: Int
            init(_ number: Int) { self.number = number }
        }
        for heldMask in 0..<(1 << count) {
            var list = InlineList<Element>()
            var held: [Element] = []
            weak var released: Element?
            for number in 0..<count {
                let element = Element(number)
                list.append(element)
                if heldMask & (1 << number) != 0 { held.append(element) } else { released = element }
            }
            list.removeUniquelyReferenced()
            #expect(list.elements.map(\.number) == held.map(\.number))
            #expect(released == nil)
            #expect(list.isEmpty == held.isEmpty)
        }
    }
}
