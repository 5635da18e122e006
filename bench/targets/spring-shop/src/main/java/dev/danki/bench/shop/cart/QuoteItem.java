package dev.danki.bench.shop.cart;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Positive;

/**
 * One cart line as the client sends it. A missing field reads as 0 and so fails its constraint.
 *
 * @param quantity 1 to 99: more than a household buys at once is a wholesale order, not a cart
 */
public record QuoteItem(
        @Positive(message = "must be a product id") long productId,
        @Min(1) @Max(99) int quantity) {}
