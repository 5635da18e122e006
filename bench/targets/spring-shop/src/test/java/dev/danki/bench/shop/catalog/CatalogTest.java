package dev.danki.bench.shop.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class CatalogTest {

    private final Catalog catalog = new Catalog(new CatalogGenerator(7).generate(200));

    @Test
    void the_same_seed_gives_the_same_catalog() {
        assertThat(new CatalogGenerator(7).generate(200)).isEqualTo(new CatalogGenerator(7).generate(200));
        assertThat(new CatalogGenerator(8).generate(200)).isNotEqualTo(new CatalogGenerator(7).generate(200));
    }

    @Test
    void every_category_gets_its_share_and_every_id_is_found() {
        assertThat(catalog.size()).isEqualTo(200);
        for (Category category : Category.values()) {
            assertThat(catalog.search(new ProductQuery(category, null, ProductSort.ID, 0, 100)).total()).isEqualTo(25);
        }
        assertThat(catalog.find(1)).isPresent();
        assertThat(catalog.find(200)).isPresent();
        assertThat(catalog.find(201)).isEmpty();
    }

    @Test
    void text_search_matches_name_description_and_tags_in_any_case() {
        Product product = new Product(1, "Oak Desk", Category.FURNITURE, null, 1, List.of("furniture", "handmade"),
                "A sturdy desk made of bamboo");
        assertThat(query("oak").matches(product)).isTrue();
        assertThat(query("BAMBOO").matches(product)).isTrue();
        assertThat(query("handmade").matches(product)).isTrue();
        assertThat(query("steel").matches(product)).isFalse();
    }

    @Test
    void pages_follow_the_sort_order_without_overlap() {
        ProductPage first = catalog.search(new ProductQuery(Category.GARDEN, null, ProductSort.PRICE, 0, 10));
        ProductPage last = catalog.search(new ProductQuery(Category.GARDEN, null, ProductSort.PRICE, 2, 10));
        assertThat(first.items()).hasSize(10);
        assertThat(first.items()).isSortedAccordingTo(ProductSort.PRICE.order());
        assertThat(last.items()).hasSize(5);
        assertThat(first.totalPages()).isEqualTo(3);
        assertThat(last.items().get(0).price()).isGreaterThanOrEqualTo(first.items().get(9).price());
    }

    @Test
    void slugs_and_sort_names_parse_in_any_case_and_unknown_ones_do_not() {
        assertThat(Category.fromSlug(" Garden ")).contains(Category.GARDEN);
        assertThat(Category.fromSlug("garage")).isEmpty();
        assertThat(ProductSort.fromParam("price")).contains(ProductSort.PRICE);
        assertThat(ProductSort.fromParam("rating")).isEmpty();
    }

    private static ProductQuery query(String text) {
        return new ProductQuery(null, text, ProductSort.ID, 0, 10);
    }
}
