package dev.danki.bench.shop.api;

import dev.danki.bench.shop.cart.Quote;
import dev.danki.bench.shop.cart.QuoteCalculator;
import dev.danki.bench.shop.cart.QuoteRequest;
import jakarta.validation.Valid;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The cart API. A quote is a read: it prices the cart and stores nothing, so a client may ask as
 * often as it likes. A POST only because the cart travels in the body.
 */
@RestController
@RequestMapping("/api/cart")
public class CartController {

    private final QuoteCalculator calculator;

    public CartController(QuoteCalculator calculator) {
        this.calculator = calculator;
    }

    @PostMapping("/quote")
    public Quote quote(@Valid @RequestBody QuoteRequest request) {
        return calculator.quote(request);
    }
}
