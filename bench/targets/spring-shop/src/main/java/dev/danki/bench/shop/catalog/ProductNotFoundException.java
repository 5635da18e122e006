package dev.danki.bench.shop.catalog;

/** A request named a product id the catalog does not have; the API answers it with a 404 problem. */
public class ProductNotFoundException extends RuntimeException {

    private final long productId;

    public ProductNotFoundException(long productId) {
        super("no product with id " + productId);
        this.productId = productId;
    }

    public long productId() {
        return productId;
    }
}
