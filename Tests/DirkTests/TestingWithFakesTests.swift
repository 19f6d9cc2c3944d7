import Dirk
import DirkTestSupport
import Testing

@Suite("Testing with fakes")
struct TestingWithFakesTests {
    @Test("a module works with a fake subclass of its component that overrides accessors")
    func fakeComponentSubclass() {
        let fake = FakeShopComponent()
        let module = CheckoutModule(fake)
        #expect(module.checkout().prices.price(of: "tea") == 1)
    }

    @Test("a component built with a fake module serves the fake to every provider")
    func componentWithFakeModule() {
        let shop = ShopComponent().module(PricingModule.self) { FixedPricingModule($0) }
        #expect(shop.checkout.checkout().prices.price(of: "tea") == 1)
    }

    @Test("a child component built with a fake parent resolves through the fake")
    func childWithFakeParent() {
        let parent = ShopComponent().module(PricingModule.self) { FixedPricingModule($0) }
        let till = TillComponent().parent(parent)
        #expect(till.till.total(["tea", "cake"]) == 2)
        let real = TillComponent().parent(ShopComponent())
        #expect(real.till.total(["tea", "cake"]) == 7)
    }

    @Test("fakes are not global: components in parallel tests never see each other's", arguments: 0..<8)
    func fakesAreLocal(seed: Int) {
        let fake = seed.isMultiple(of: 2)
        let shop =
            fake ? ShopComponent().module(PricingModule.self) { FixedPricingModule($0) } : ShopComponent()
        for _ in 0..<100 {
            #expect(shop.checkout.checkout().prices.price(of: "cake") == (fake ? 1 : 4))
        }
    }
}

// MARK: Fixtures

protocol Prices: AnyObject, Sendable {
    func price(of item: String) -> Int
}

final class Catalogue: Prices, Sendable {
    func price(of item: String) -> Int { item == "tea" ? 3 : 4 }
}

final class FixedPrices: Prices, Sendable {
    func price(of item: String) -> Int { 1 }
}

final class Checkout: Sendable {
    let prices: any Prices

    init(prices: any Prices) {
        self.prices = prices
    }
}

class ShopComponent: Component, @unchecked Sendable {
    var pricing: PricingModule { module() }
    var checkout: CheckoutModule { module() }
}

final class FakeShopComponent: ShopComponent, @unchecked Sendable {
    override var pricing: PricingModule { fixed }
    var fixed: FixedPricingModule { (self as ShopComponent).module() }
}

class PricingModule: Module<ShopComponent> {
    func prices() -> any Prices { single { Catalogue() } }
}

final class FixedPricingModule: PricingModule {
    override func prices() -> any Prices { single { FixedPrices() } }
}

class CheckoutModule: Module<ShopComponent> {
    func checkout() -> Checkout { transient { c in Checkout(prices: c.pricing.prices()) } }
}

final class TillComponent: Component, @unchecked Sendable {
    var shop: ShopComponent { parent() }
    var till: TillModule { module() }
}

class TillModule: Module<TillComponent> {
    func total(_ items: [String]) -> Int {
        transient { c in items.map { c.shop.pricing.prices().price(of: $0) }.reduce(0, +) }
    }
}
