package dev.danki.bench.shop.cart;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * A cart to price: who asks, what is in it, and an optional coupon code. Nothing is stored; the same
 * request always gets the same prices.
 *
 * @param items at most 50 lines, so one quote stays a bounded amount of work
 * @param coupon null or blank for none; an unknown code is reported in the quote, not rejected
 */
public record QuoteRequest(
        @NotBlank @Size(max = 64) String customerId,
        @NotEmpty @Size(max = 50) List<@NotNull @Valid QuoteItem> items,
        @Size(max = 20) @Pattern(regexp = "[A-Za-z0-9]*", message = "must be letters and digits") String coupon) {}
