import Dirk
import DirkTestSupport
import Testing

/// Messages that name the place to look at and the exact spelling of the fix.
@Suite("Messages name the place and the fix")
struct MisuseMessageTests {
    #if compiler(>=6.2)  // Exit tests need Swift 6.2; Swift 6.0 and 6.1 do not have them.
    @Test("a missing parent names the accessor's file and line")
    func missingParentNamesTheAccessor() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MessageChildComponent().app
        }
        let message = standardError(of: result)
        #expect(message.contains("Dirk: `MessageChildComponent` has no parent of type `MessageAppComponent`"))
        #expect(
            message.contains(
                "The accessor at DirkTests/MisuseMessageTests.swift:\(MessageChildComponent.appLine) asked for one."
            ))
        #expect(message.contains("`.parent(messageAppComponent)`"))
    }

    @Test("overriding a keyed provider that builds a concrete type shows the keyed spelling of the fix")
    func concreteKeyedStrategy() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            MessageAppComponent().overriding {
                $0.labels.named("a")
            } with: {
                "fake"
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("its `single(key:)` builds `MessageLabel`"))
        #expect(message.contains("`single(key: key) { MessageLabel() as any CustomStringConvertible }`"))
    }

    @Test("overriding an async provider that builds a concrete type shows the awaited spelling of the fix")
    func concreteAsyncStrategy() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = await MessageAppComponent().overriding {
                await $0.labels.loaded()
            } with: {
                "fake"
            }
        }
        let message = standardError(of: result)
        #expect(message.contains("its `async single` builds `MessageLabel`"))
        #expect(
            message.contains("end its factory with `as any CustomStringConvertible`, after what it awaits"))
    }
    #endif
}

// MARK: Fixtures

final class MessageAppComponent: Component, @unchecked Sendable {
    var labels: MessageLabelModule { module() }
}

final class MessageChildComponent: Component, @unchecked Sendable {
    static let appLine = #line + 1
    var app: MessageAppComponent { parent() }
}

final class MessageLabel: CustomStringConvertible, Sendable {
    var description: String { "label" }
}

func loadMessageLabel() async -> MessageLabel { MessageLabel() }

final class MessageLabelModule: Module<MessageAppComponent> {
    // Each builds a `MessageLabel`, which becomes the provider's existential on return.
    func named(_ name: String) -> any CustomStringConvertible { single(key: name) { MessageLabel() } }
    func loaded() async -> any CustomStringConvertible { await single { await loadMessageLabel() } }
}
