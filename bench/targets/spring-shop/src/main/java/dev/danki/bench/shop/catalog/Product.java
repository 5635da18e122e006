package dev.danki.bench.shop.catalog;

import java.math.BigDecimal;
import java.util.List;

/** One item for sale. Immutable: the catalog is built once at start-up and only read afterwards. */
public record Product(
        long id,
        String name,
        Category category,
        BigDecimal price,
        int stock,
        List<String> tags,
        String description) {

    public Product {
        tags = List.copyOf(tags);
    }
}
