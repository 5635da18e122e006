package dev.danki.bench.shop.catalog;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Makes a believable product list from a seed. {@link Random}'s algorithm is fixed by its
 * specification, so the same seed gives the same catalog on every JVM: benchmark runs stay comparable.
 */
public class CatalogGenerator {

    private static final List<String> ADJECTIVES = List.of(
            "Classic", "Compact", "Deluxe", "Eco", "Everyday", "Heavy-Duty", "Nordic", "Pro",
            "Rustic", "Smart", "Soft", "Travel", "Urban", "Vintage", "Weatherproof", "Premium");

    private static final List<String> MATERIALS = List.of(
            "bamboo", "steel", "oak", "linen", "ceramic", "recycled plastic", "wool", "glass", "cotton");

    private static final List<String> TAGS = List.of(
            "bestseller", "new", "sale", "gift", "eco", "handmade", "limited", "family",
            "outdoor", "indoor", "durable", "lightweight", "classic", "premium");

    private static final Map<Category, List<String>> NOUNS = nouns();

    private final long seed;

    public CatalogGenerator(long seed) {
        this.seed = seed;
    }

    /** {@code count} products with ids 1..count, spread evenly over the categories. */
    public List<Product> generate(int count) {
        Random random = new Random(seed);
        Category[] categories = Category.values();
        List<Product> products = new ArrayList<>(count);
        for (int id = 1; id <= count; id++) {
            products.add(product(id, categories[id % categories.length], random));
        }
        return products;
    }

    private Product product(long id, Category category, Random random) {
        String noun = pick(NOUNS.get(category), random);
        String adjective = pick(ADJECTIVES, random);
        String material = pick(MATERIALS, random);
        String name = adjective + " " + noun;
        // prices from 1.99 to 499.89, always ending in .x9 like real shelf prices
        BigDecimal price = BigDecimal.valueOf(199 + random.nextInt(4_980) * 10L, 2);
        int stock = random.nextInt(10) == 0 ? 0 : random.nextInt(120);
        List<String> tags = tags(category, random);
        // Locale.ROOT: the same text (and decimal point) whatever the machine's locale
        String description = String.format(Locale.ROOT,
                "%s %s %s made of %s, part of our %s range. Rated %.1f by %d customers.",
                article(adjective), adjective.toLowerCase(Locale.ROOT), noun.toLowerCase(Locale.ROOT), material,
                category.title().toLowerCase(Locale.ROOT),
                3.0 + random.nextInt(21) / 10.0, 5 + random.nextInt(900));
        return new Product(id, name, category, price, stock, tags, description);
    }

    private static List<String> tags(Category category, Random random) {
        Set<String> tags = new LinkedHashSet<>();
        tags.add(category.slug());
        int extra = 1 + random.nextInt(3);
        while (tags.size() <= extra) {
            tags.add(pick(TAGS, random));
        }
        return List.copyOf(tags);
    }

    private static String article(String word) {
        return "AEIOU".indexOf(word.charAt(0)) >= 0 ? "An" : "A";
    }

    private static String pick(List<String> choices, Random random) {
        return choices.get(random.nextInt(choices.size()));
    }

    private static Map<Category, List<String>> nouns() {
        Map<Category, List<String>> nouns = new EnumMap<>(Category.class);
        nouns.put(Category.GARDEN, List.of("Hose Reel", "Planter", "Pruning Shears", "Bird Feeder", "Rake", "Watering Can"));
        nouns.put(Category.KITCHEN, List.of("Chef Knife", "Skillet", "Cutting Board", "Kettle", "Spice Rack", "Colander"));
        nouns.put(Category.ELECTRONICS, List.of("Headphones", "Desk Lamp", "Power Bank", "Speaker", "Webcam", "Keyboard"));
        nouns.put(Category.BOOKS, List.of("Cookbook", "Field Guide", "Atlas", "Notebook", "Novel", "Sketchbook"));
        nouns.put(Category.TOYS, List.of("Puzzle", "Building Set", "Kite", "Plush Bear", "Board Game", "Train Set"));
        nouns.put(Category.SPORTS, List.of("Yoga Mat", "Dumbbell Set", "Tent", "Bike Helmet", "Backpack", "Water Bottle"));
        nouns.put(Category.GROCERY, List.of("Coffee Beans", "Olive Oil", "Green Tea", "Honey", "Pasta", "Dark Chocolate"));
        nouns.put(Category.FURNITURE, List.of("Bookshelf", "Armchair", "Side Table", "Desk", "Bench", "Floor Lamp"));
        return nouns;
    }
}
