package dev.danki.bench.shop.catalog;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The shop's products, held in memory and read-only after start-up; a stand-in for the database a
 * real shop would query, so that a request's cost is the app's own code and not I/O.
 */
public class Catalog {

    private final List<Product> products;
    private final Map<Long, Product> byId;

    public Catalog(List<Product> products) {
        this.products = List.copyOf(products);
        this.byId = this.products.stream().collect(Collectors.toUnmodifiableMap(Product::id, Function.identity()));
    }

    public Optional<Product> find(long id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Filters, sorts and cuts out the page {@code query} asks for. */
    public ProductPage search(ProductQuery query) {
        List<Product> matching = products.stream()
                .filter(query::matches)
                .sorted(query.sort().order())
                .toList();
        long from = (long) query.page() * query.size();
        List<Product> items = matching.stream().skip(from).limit(query.size()).toList();
        int totalPages = (matching.size() + query.size() - 1) / query.size();
        return new ProductPage(items, query.page(), query.size(), matching.size(), totalPages);
    }

    public int size() {
        return products.size();
    }
}
