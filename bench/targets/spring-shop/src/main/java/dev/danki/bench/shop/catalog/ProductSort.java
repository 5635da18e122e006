package dev.danki.bench.shop.catalog;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;

/** The orders a product list can be sorted in; ties fall back to the id so pages never overlap. */
public enum ProductSort {
    PRICE(Comparator.comparing(Product::price)),
    NAME(Comparator.comparing(Product::name, String.CASE_INSENSITIVE_ORDER)),
    ID(Comparator.comparingLong(Product::id));

    private final Comparator<Product> order;

    ProductSort(Comparator<Product> primary) {
        this.order = primary.thenComparingLong(Product::id);
    }

    public Comparator<Product> order() {
        return order;
    }

    /** The sort named by {@code value} ({@code price}, {@code name}, {@code id}, any case), or empty. */
    public static Optional<ProductSort> fromParam(String value) {
        String wanted = value.trim().toUpperCase(Locale.ROOT);
        return Arrays.stream(values()).filter(s -> s.name().equals(wanted)).findFirst();
    }
}
