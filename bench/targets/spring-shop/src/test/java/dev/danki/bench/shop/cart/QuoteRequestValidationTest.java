package dev.danki.bench.shop.cart;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.ValidatorFactory;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class QuoteRequestValidationTest {

    private static final ValidatorFactory FACTORY = Validation.buildDefaultValidatorFactory();
    private static final Validator VALIDATOR = FACTORY.getValidator();

    @AfterAll
    static void close() {
        FACTORY.close();
    }

    @Test
    void a_normal_cart_is_valid_with_or_without_a_coupon() {
        assertThat(invalidFields(new QuoteRequest("c1", List.of(new QuoteItem(17, 2)), "SPRING10"))).isEmpty();
        assertThat(invalidFields(new QuoteRequest("c1", List.of(new QuoteItem(17, 99)), null))).isEmpty();
    }

    @Test
    void quantity_must_be_between_1_and_99() {
        QuoteRequest request = new QuoteRequest("c1", List.of(new QuoteItem(17, 0), new QuoteItem(18, 100)), null);
        assertThat(invalidFields(request)).containsExactlyInAnyOrder("items[0].quantity", "items[1].quantity");
    }

    @Test
    void customer_items_and_coupon_are_each_checked() {
        QuoteRequest request = new QuoteRequest(" ", List.of(), "10%OFF");
        assertThat(invalidFields(request)).containsExactlyInAnyOrder("customerId", "items", "coupon");
    }

    @Test
    void a_product_id_of_zero_is_rejected() {
        QuoteRequest request = new QuoteRequest("c1", List.of(new QuoteItem(0, 1)), null);
        assertThat(invalidFields(request)).containsExactly("items[0].productId");
    }

    private static Set<String> invalidFields(QuoteRequest request) {
        return VALIDATOR.validate(request).stream()
                .map(ConstraintViolation::getPropertyPath)
                .map(Object::toString)
                .collect(Collectors.toSet());
    }
}
