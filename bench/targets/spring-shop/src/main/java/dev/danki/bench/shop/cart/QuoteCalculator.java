package dev.danki.bench.shop.cart;

import dev.danki.bench.shop.catalog.Catalog;
import dev.danki.bench.shop.catalog.Product;
import dev.danki.bench.shop.catalog.ProductNotFoundException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.stereotype.Component;

/**
 * Prices a cart: line totals, the coupon's discount, VAT by category, and shipping. Every amount is
 * a {@link BigDecimal} rounded half-even to the cent per line, as accounting expects, so totals add
 * up exactly.
 */
@Component
public class QuoteCalculator {

    static final String CURRENCY = "EUR";

    /** Goods worth this much (after discount) ship without the base charge: the usual nudge to add more. */
    static final BigDecimal FREE_SHIPPING_FROM = new BigDecimal("50.00");

    static final BigDecimal BASE_SHIPPING = new BigDecimal("4.90");

    /** Charged for each bulky line whatever the order's value: those go by freight. */
    static final BigDecimal BULKY_SURCHARGE = new BigDecimal("2.50");

    /** How long quoted prices hold: long enough to check out, short enough to follow price changes. */
    static final Duration VALIDITY = Duration.ofMinutes(15);

    private final Catalog catalog;
    private final Clock clock;

    public QuoteCalculator(Catalog catalog, Clock clock) {
        this.catalog = catalog;
        this.clock = clock;
    }

    /** The quote for {@code request}; throws {@link ProductNotFoundException} for an unknown product. */
    public Quote quote(QuoteRequest request) {
        List<String> notes = new ArrayList<>();
        Coupon coupon = coupon(request.coupon(), notes);
        List<QuoteLine> lines = new ArrayList<>();
        mergedQuantities(request.items()).forEach((id, quantity) -> lines.add(line(id, quantity, coupon)));
        lines.stream().filter(line -> !line.inStock()).forEach(line -> notes.add(stockNote(line)));

        BigDecimal subtotal = sum(lines, QuoteLine::lineTotal);
        BigDecimal discount = sum(lines, QuoteLine::discount);
        BigDecimal tax = sum(lines, QuoteLine::tax);
        BigDecimal goods = subtotal.subtract(discount);
        BigDecimal shipping = shipping(goods, lines, coupon);
        if (goods.compareTo(FREE_SHIPPING_FROM) < 0 && (coupon == null || !coupon.freeShipping())) {
            notes.add(String.format(Locale.ROOT, "add %s %s more for free standard shipping",
                    CURRENCY, FREE_SHIPPING_FROM.subtract(goods)));
        }
        BigDecimal total = goods.add(tax).add(shipping);
        int itemCount = lines.stream().mapToInt(QuoteLine::quantity).sum();
        String summary = String.format(Locale.ROOT, "%d item(s) in %d line(s) for %s: total %s %s",
                itemCount, lines.size(), request.customerId(), CURRENCY, total.toPlainString());
        String validUntil = clock.instant().plus(VALIDITY).truncatedTo(ChronoUnit.SECONDS).toString();
        return new Quote(UUID.randomUUID().toString(), request.customerId(), CURRENCY, List.copyOf(lines),
                itemCount, subtotal, discount, tax, shipping, total, coupon == null ? null : coupon.name(),
                List.copyOf(notes), summary, validUntil);
    }

    /** The coupon to apply, or null; an unknown code is noted for the shopper rather than failing the quote. */
    private static Coupon coupon(String code, List<String> notes) {
        if (code == null || code.isBlank()) {
            return null;
        }
        Coupon coupon = Coupon.fromCode(code).orElse(null);
        if (coupon == null) {
            notes.add("coupon " + code + " is not valid");
        }
        return coupon;
    }

    /** One line per product, in the order first seen: a product listed twice is bought once, added up. */
    private static Map<Long, Integer> mergedQuantities(List<QuoteItem> items) {
        Map<Long, Integer> quantities = new LinkedHashMap<>();
        for (QuoteItem item : items) {
            quantities.merge(item.productId(), item.quantity(), Integer::sum);
        }
        return quantities;
    }

    private QuoteLine line(long productId, int quantity, Coupon coupon) {
        Product product = catalog.find(productId).orElseThrow(() -> new ProductNotFoundException(productId));
        BigDecimal lineTotal = cents(product.price().multiply(BigDecimal.valueOf(quantity)));
        BigDecimal rate = coupon == null ? BigDecimal.ZERO : coupon.discountRate(product.category());
        BigDecimal discount = cents(lineTotal.multiply(rate));
        BigDecimal tax = cents(lineTotal.subtract(discount).multiply(product.category().taxRate()));
        return new QuoteLine(product.id(), product.name(), product.category(), product.price(), quantity,
                lineTotal, discount, tax, quantity <= product.stock());
    }

    private static BigDecimal shipping(BigDecimal goods, List<QuoteLine> lines, Coupon coupon) {
        if (coupon != null && coupon.freeShipping()) {
            return cents(BigDecimal.ZERO);
        }
        long bulkyLines = lines.stream().filter(line -> line.category().bulky()).count();
        BigDecimal base = goods.compareTo(FREE_SHIPPING_FROM) >= 0 ? BigDecimal.ZERO : BASE_SHIPPING;
        return cents(base.add(BULKY_SURCHARGE.multiply(BigDecimal.valueOf(bulkyLines))));
    }

    private static String stockNote(QuoteLine line) {
        return String.format(Locale.ROOT, "%s: %d ordered, fewer in stock; the rest ships when restocked",
                line.name(), line.quantity());
    }

    private static BigDecimal sum(List<QuoteLine> lines, Function<QuoteLine, BigDecimal> amount) {
        return lines.stream().map(amount).reduce(cents(BigDecimal.ZERO), BigDecimal::add);
    }

    private static BigDecimal cents(BigDecimal amount) {
        return amount.setScale(2, RoundingMode.HALF_EVEN);
    }
}
