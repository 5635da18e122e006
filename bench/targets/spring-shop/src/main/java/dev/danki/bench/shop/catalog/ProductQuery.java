package dev.danki.bench.shop.catalog;

import java.util.Locale;

/**
 * What a product list asks for: an optional category and search text, an order, and one page.
 *
 * @param category null for every category
 * @param text null or blank for no text filter; matched case-insensitively against name, description
 *     and tags
 * @param page zero-based page number
 * @param size products per page, at least 1
 */
public record ProductQuery(Category category, String text, ProductSort sort, int page, int size) {

    /** Whether {@code product} belongs in the result, before sorting and paging. */
    public boolean matches(Product product) {
        if (category != null && product.category() != category) {
            return false;
        }
        if (text == null || text.isBlank()) {
            return true;
        }
        String needle = text.trim().toLowerCase(Locale.ROOT);
        return contains(product.name(), needle)
                || contains(product.description(), needle)
                || product.tags().stream().anyMatch(tag -> contains(tag, needle));
    }

    private static boolean contains(String haystack, String needle) {
        return haystack.toLowerCase(Locale.ROOT).contains(needle);
    }
}
