package dev.danki.bench.shop.cart;

import java.math.BigDecimal;
import java.util.List;

/**
 * The priced cart: lines, totals and the notes a shopper should see. Not stored anywhere; valid until
 * {@code validUntil} (ISO-8601), after which prices may change.
 *
 * @param coupon the coupon code applied, or null when none was (or an unknown one was sent)
 * @param total subtotal minus discount plus tax plus shipping
 * @param summary one human-readable line, as shown at the top of a checkout page
 */
public record Quote(
        String quoteId,
        String customerId,
        String currency,
        List<QuoteLine> lines,
        int itemCount,
        BigDecimal subtotal,
        BigDecimal discount,
        BigDecimal tax,
        BigDecimal shipping,
        BigDecimal total,
        String coupon,
        List<String> notes,
        String summary,
        String validUntil) {}
