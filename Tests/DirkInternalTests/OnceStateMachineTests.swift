import Dirk
import Testing

@Suite("The build-once state machine")
struct OnceStateMachineTests {
    private let frame = Frame(
        .provider, strategy: .single, owner: 1, component: 1,
        site: ProviderSite(file: #fileID, line: #line, column: #column, function: #function), type: Int.self,
        subject: Int.self, componentType: Int.self)

    @Test("the first claim builds; the builder's own claim while building is a cycle; others wait")
    func claims() {
        var machine = OnceStateMachine<StrongStorage<Int>>()
        let builder = BuildAgent.standalone()
        let other = BuildAgent.standalone()
        guard case .build(let generation) = machine.claim(by: builder, frame: frame) else {
            Issue.record("the first claim must build")
            return
        }
        guard case .cycle = machine.claim(by: builder, frame: frame) else {
            Issue.record("the builder's second claim must be a cycle")
            return
        }
        guard case .wait(let waited) = machine.claim(by: other, frame: frame) else {
            Issue.record("another agent must wait")
            return
        }
        #expect(waited == generation)
        machine.holdInstance(7, generation: generation)
        guard case .ownInstance(7) = machine.claim(by: builder, frame: frame) else {
            Issue.record("the builder sees the instance it holds")
            return
        }
        _ = machine.publish(generation: generation)
        #expect(machine.readyValue == 7)
        machine.checkInvariants()
    }
}
