package dev.danki.bench.shop.web;

import dev.danki.bench.shop.catalog.Catalog;
import dev.danki.bench.shop.catalog.Category;
import dev.danki.bench.shop.catalog.Product;
import dev.danki.bench.shop.catalog.ProductQuery;
import dev.danki.bench.shop.catalog.ProductSort;
import java.text.NumberFormat;
import java.util.Arrays;
import java.util.Currency;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.server.ResponseStatusException;

/**
 * The server-rendered category page ({@code templates/shop.mustache}), the kind of HTML page most
 * shops keep beside their JSON API: every product of one category, by name.
 */
@Controller
public class ShopPageController {

    /** The page's language and number format; fixed, so the page does not depend on the machine. */
    private static final Locale PAGE_LOCALE = Locale.GERMANY;

    /** Whole categories fit on one page: about 25 products each. */
    private static final int PAGE_SIZE = 100;

    /** At or below this many left, the page warns the shopper. */
    private static final int LOW_STOCK = 5;

    private final Catalog catalog;

    public ShopPageController(Catalog catalog) {
        this.catalog = catalog;
    }

    @GetMapping("/shop/{slug}")
    public String category(@PathVariable String slug, Model model) {
        Category category = Category.fromSlug(slug)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no category " + slug));
        List<Product> products = catalog.search(new ProductQuery(category, null, ProductSort.NAME, 0, PAGE_SIZE)).items();
        // NumberFormat is not thread-safe, so each request makes its own, as a typical page does
        NumberFormat money = NumberFormat.getCurrencyInstance(PAGE_LOCALE);
        money.setCurrency(Currency.getInstance("EUR"));
        model.addAttribute("title", category.title());
        model.addAttribute("count", products.size());
        model.addAttribute("products", products.stream().map(p -> row(p, money)).toList());
        model.addAttribute("categories", Arrays.stream(Category.values())
                .map(c -> Map.of("slug", c.slug(), "title", c.title()))
                .toList());
        return "shop";
    }

    private static ProductRow row(Product product, NumberFormat money) {
        return new ProductRow(product.id(), product.name(), money.format(product.price()),
                stock(product.stock()), String.join(", ", product.tags()), product.description());
    }

    private static String stock(int stock) {
        if (stock == 0) {
            return "sold out";
        }
        return stock <= LOW_STOCK ? "only " + stock + " left" : "in stock";
    }
}
