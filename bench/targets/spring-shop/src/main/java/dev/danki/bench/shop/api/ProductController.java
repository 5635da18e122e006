package dev.danki.bench.shop.api;

import dev.danki.bench.shop.catalog.Catalog;
import dev.danki.bench.shop.catalog.Category;
import dev.danki.bench.shop.catalog.Product;
import dev.danki.bench.shop.catalog.ProductNotFoundException;
import dev.danki.bench.shop.catalog.ProductPage;
import dev.danki.bench.shop.catalog.ProductQuery;
import dev.danki.bench.shop.catalog.ProductSort;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** The product API: one product by id, and a filtered, sorted, paged list. */
@RestController
@RequestMapping("/api/products")
public class ProductController {

    /** Large enough for a category page in one go, small enough that one request stays cheap. */
    static final int MAX_PAGE_SIZE = 100;

    private final Catalog catalog;

    public ProductController(Catalog catalog) {
        this.catalog = catalog;
    }

    @GetMapping("/{id}")
    public Product product(@PathVariable long id) {
        return catalog.find(id).orElseThrow(() -> new ProductNotFoundException(id));
    }

    @GetMapping
    public ProductPage products(
            @RequestParam(required = false) String category,
            @RequestParam(required = false) @Size(max = 100) String q,
            @RequestParam(defaultValue = "id") String sort,
            @RequestParam(defaultValue = "0") @Min(0) int page,
            @RequestParam(defaultValue = "20") @Min(1) @Max(MAX_PAGE_SIZE) int size) {
        Category wanted = category == null ? null : Category.fromSlug(category)
                .orElseThrow(() -> badRequest("unknown category '" + category + "'"));
        ProductSort order = ProductSort.fromParam(sort)
                .orElseThrow(() -> badRequest("unknown sort '" + sort + "': expected price, name or id"));
        return catalog.search(new ProductQuery(wanted, q, order, page, size));
    }

    private static ResponseStatusException badRequest(String reason) {
        return new ResponseStatusException(HttpStatus.BAD_REQUEST, reason);
    }
}
