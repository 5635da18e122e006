package dev.danki.bench.shop.cart;

import dev.danki.bench.shop.catalog.Category;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The coupon codes the shop accepts, each a percentage off some categories or free shipping. */
public enum Coupon {
    /** 10 % off everything. */
    SPRING10("0.10", null, false),
    /** 20 % off garden goods only. */
    GARDEN20("0.20", Category.GARDEN, false),
    /** No discount on goods, but no shipping charge either. */
    FREESHIP("0", null, true);

    private final BigDecimal rate;
    private final Category only;
    private final boolean freeShipping;

    Coupon(String rate, Category only, boolean freeShipping) {
        this.rate = new BigDecimal(rate);
        this.only = only;
        this.freeShipping = freeShipping;
    }

    /** The share taken off a line of {@code category}: zero where the coupon does not apply. */
    public BigDecimal discountRate(Category category) {
        return only == null || only == category ? rate : BigDecimal.ZERO;
    }

    public boolean freeShipping() {
        return freeShipping;
    }

    /** The coupon with this code (any case), or empty for an unknown one. */
    public static Optional<Coupon> fromCode(String code) {
        String wanted = code.trim().toUpperCase(Locale.ROOT);
        return Arrays.stream(values()).filter(c -> c.name().equals(wanted)).findFirst();
    }
}
