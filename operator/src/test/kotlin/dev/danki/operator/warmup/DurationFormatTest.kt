package dev.danki.operator.warmup

import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.time.Duration

class DurationFormatTest {
    @Test
    fun `parses Go style durations`() {
        DurationFormat.parse("250ms") shouldBe Duration.ofMillis(250)
        DurationFormat.parse("5m") shouldBe Duration.ofMinutes(5)
        DurationFormat.parse("1h2m3s") shouldBe Duration.ofSeconds(3723)
        DurationFormat.parse("1.5s") shouldBe Duration.ofMillis(1500)
    }

    @Test
    fun `rejects numbers without units and unknown units`() {
        listOf("5", "5d", "", "m5", "5 m").forEach { DurationFormat.parse(it) shouldBe null }
    }

    @Test
    fun `formats short and long durations`() {
        DurationFormat.format(Duration.ofMillis(850)) shouldBe "850ms"
        DurationFormat.format(Duration.ofMillis(12_340)) shouldBe "12.3s"
        DurationFormat.format(Duration.ofSeconds(245)) shouldBe "4m05s"
    }
}
