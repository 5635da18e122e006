package dev.danki.bench.shop.catalog;

import java.util.List;

/**
 * One page of a product list, with the totals a client needs to page through the rest.
 *
 * @param total how many products matched over all pages
 */
public record ProductPage(List<Product> items, int page, int size, long total, int totalPages) {}
