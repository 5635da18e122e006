package dev.danki.bench.shop.cart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.danki.bench.shop.catalog.Catalog;
import dev.danki.bench.shop.catalog.Category;
import dev.danki.bench.shop.catalog.Product;
import dev.danki.bench.shop.catalog.ProductNotFoundException;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class QuoteCalculatorTest {

    private static final Catalog CATALOG = new Catalog(List.of(
            product(1, "Planter", Category.GARDEN, "10.00", 5),
            product(2, "Cookbook", Category.BOOKS, "20.00", 10),
            product(3, "Kettle", Category.KITCHEN, "30.00", 0),
            product(4, "Armchair", Category.FURNITURE, "199.99", 2)));

    private final QuoteCalculator calculator =
            new QuoteCalculator(CATALOG, Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC));

    @Test
    void a_small_order_pays_vat_by_category_and_the_base_shipping() {
        Quote quote = calculator.quote(request(null, new QuoteItem(2, 1)));

        assertThat(quote.subtotal()).isEqualByComparingTo("20.00");
        assertThat(quote.tax()).isEqualByComparingTo("1.40");
        assertThat(quote.shipping()).isEqualByComparingTo("4.90");
        assertThat(quote.total()).isEqualByComparingTo("26.30");
        assertThat(quote.notes()).containsExactly("add EUR 30.00 more for free standard shipping");
        assertThat(quote.summary()).isEqualTo("1 item(s) in 1 line(s) for c1: total EUR 26.30");
        assertThat(quote.validUntil()).isEqualTo("2026-11-23T10:15:00Z");
    }

    @Test
    void spring10_takes_ten_percent_off_every_line_before_tax_and_bulky_lines_still_pay_freight() {
        Quote quote = calculator.quote(request("spring10", new QuoteItem(1, 2), new QuoteItem(2, 1), new QuoteItem(4, 1)));

        assertThat(quote.coupon()).isEqualTo("SPRING10");
        assertThat(quote.subtotal()).isEqualByComparingTo("239.99");
        assertThat(quote.lines()).extracting(QuoteLine::discount).map(BigDecimal::toPlainString)
                .containsExactly("2.00", "2.00", "20.00");
        assertThat(quote.discount()).isEqualByComparingTo("24.00");
        assertThat(quote.tax()).isEqualByComparingTo("38.88");
        assertThat(quote.shipping()).isEqualByComparingTo("5.00");
        assertThat(quote.total()).isEqualByComparingTo("259.87");
        assertThat(quote.notes()).isEmpty();
    }

    @Test
    void garden20_discounts_only_garden_lines() {
        Quote quote = calculator.quote(request("GARDEN20", new QuoteItem(1, 1), new QuoteItem(2, 1)));

        assertThat(quote.lines()).extracting(QuoteLine::discount).map(BigDecimal::toPlainString)
                .containsExactly("2.00", "0.00");
    }

    @Test
    void freeship_waives_base_shipping_and_the_bulky_surcharge() {
        Quote quote = calculator.quote(request("FREESHIP", new QuoteItem(1, 1)));

        assertThat(quote.shipping()).isEqualByComparingTo("0.00");
        assertThat(quote.discount()).isEqualByComparingTo("0.00");
        assertThat(quote.notes()).isEmpty();
    }

    @Test
    void the_same_product_listed_twice_is_one_line_with_the_quantities_added() {
        Quote quote = calculator.quote(request(null, new QuoteItem(2, 1), new QuoteItem(1, 1), new QuoteItem(2, 2)));

        assertThat(quote.lines()).extracting(QuoteLine::productId).containsExactly(2L, 1L);
        assertThat(quote.lines().get(0).quantity()).isEqualTo(3);
        assertThat(quote.itemCount()).isEqualTo(4);
    }

    @Test
    void an_unknown_coupon_is_noted_and_ignored() {
        Quote quote = calculator.quote(request("NOPE", new QuoteItem(4, 1)));

        assertThat(quote.coupon()).isNull();
        assertThat(quote.discount()).isEqualByComparingTo("0.00");
        assertThat(quote.notes()).containsExactly("coupon NOPE is not valid");
    }

    @Test
    void a_line_beyond_the_stock_is_flagged_and_noted() {
        Quote quote = calculator.quote(request(null, new QuoteItem(3, 2)));

        assertThat(quote.lines().get(0).inStock()).isFalse();
        assertThat(quote.notes()).anyMatch(note -> note.startsWith("Kettle: 2 ordered"));
    }

    @Test
    void an_unknown_product_fails_the_quote() {
        assertThatThrownBy(() -> calculator.quote(request(null, new QuoteItem(99, 1))))
                .isInstanceOf(ProductNotFoundException.class)
                .hasMessage("no product with id 99");
    }

    private static QuoteRequest request(String coupon, QuoteItem... items) {
        return new QuoteRequest("c1", List.of(items), coupon);
    }

    private static Product product(long id, String name, Category category, String price, int stock) {
        return new Product(id, name, category, new BigDecimal(price), stock, List.of(category.slug()), name);
    }
}
