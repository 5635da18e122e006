package dev.danki.bench.shop.cart;

import dev.danki.bench.shop.catalog.Category;
import java.math.BigDecimal;

/**
 * One priced cart line. Amounts are in the quote's currency, rounded to the cent.
 *
 * @param lineTotal unit price times quantity, before discount and tax
 * @param tax VAT on the line after its discount, at the category's rate
 */
public record QuoteLine(
        long productId,
        String name,
        Category category,
        BigDecimal unitPrice,
        int quantity,
        BigDecimal lineTotal,
        BigDecimal discount,
        BigDecimal tax,
        boolean inStock) {}
