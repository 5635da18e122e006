package dev.danki.bench.shop;

import dev.danki.bench.shop.catalog.Catalog;
import dev.danki.bench.shop.catalog.CatalogGenerator;
import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A small web shop that stands in for a JVM app danki does not own: the second warm-up target of
 * {@code make bench}, on a different stack (Spring MVC on Tomcat) from the Ktor sample service.
 * Wiring only; the work is in the catalog, cart and web packages.
 */
@SpringBootApplication
public class ShopApplication {

    /** How many products the catalog holds: enough that search, sort and paging do real work. */
    static final int CATALOG_SIZE = 200;

    /** Fixed, so every start (and every benchmark run) serves the same catalog. */
    static final long CATALOG_SEED = 20261123L;

    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }

    @Bean
    Catalog catalog() {
        return new Catalog(new CatalogGenerator(CATALOG_SEED).generate(CATALOG_SIZE));
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
