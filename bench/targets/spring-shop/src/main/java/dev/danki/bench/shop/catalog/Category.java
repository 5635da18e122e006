package dev.danki.bench.shop.catalog;

import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * A shop department. It carries the rules that differ by department: the VAT rate (reduced for food
 * and books, as in most of Europe) and whether its goods are bulky to ship.
 */
public enum Category {
    GARDEN("garden", "Garden", "0.19", true),
    KITCHEN("kitchen", "Kitchen", "0.19", false),
    ELECTRONICS("electronics", "Electronics", "0.19", false),
    BOOKS("books", "Books", "0.07", false),
    TOYS("toys", "Toys", "0.19", false),
    SPORTS("sports", "Sports", "0.19", true),
    GROCERY("grocery", "Grocery", "0.07", false),
    FURNITURE("furniture", "Furniture", "0.19", true);

    private final String slug;
    private final String title;
    private final BigDecimal taxRate;
    private final boolean bulky;

    Category(String slug, String title, String taxRate, boolean bulky) {
        this.slug = slug;
        this.title = title;
        this.taxRate = new BigDecimal(taxRate);
        this.bulky = bulky;
    }

    /** The lower-case name used in URLs and JSON. */
    @JsonValue
    public String slug() {
        return slug;
    }

    public String title() {
        return title;
    }

    public BigDecimal taxRate() {
        return taxRate;
    }

    public boolean bulky() {
        return bulky;
    }

    /** The category named by {@code slug} (any case), or empty for a name the shop does not have. */
    public static Optional<Category> fromSlug(String slug) {
        String wanted = slug.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(c -> c.slug.equals(wanted)).findFirst();
    }
}
