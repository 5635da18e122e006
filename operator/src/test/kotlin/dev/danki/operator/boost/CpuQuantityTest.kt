package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Quantity
import io.kotest.matchers.shouldBe
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import org.junit.jupiter.params.provider.ValueSource

class CpuQuantityTest {
    @ParameterizedTest
    @CsvSource("1,1000", "2,2000", "1.5,1500", "0.25,250", "1500m,1500", "100m,100", " 2 ,2000", "64,64000")
    fun `plain CPU amounts parse to millicores`(raw: String, millis: Long) {
        CpuQuantity.parseMillis(raw) shouldBe millis
    }

    @ParameterizedTest
    @ValueSource(strings = ["", "m", "-1", "1e3", "2Ki", "1.2345", "1,5", "one", "1500 m", "0x10", "9999999m"])
    fun `anything else is not a CPU amount`(raw: String) {
        CpuQuantity.parseMillis(raw) shouldBe null
    }

    @ParameterizedTest
    @CsvSource("200m,200", "1,1000", "0.5,500", "1500m,1500", "2000m,2000", "1.0001,1001")
    fun `the API server's quantities are read in millicores, a fraction of one rounded up`(raw: String, millis: Long) {
        CpuQuantity.millisOf(Quantity(raw)) shouldBe millis
    }

    @ParameterizedTest
    @CsvSource("1000,1", "2000,2", "1500,1500m", "250,250m")
    fun `formatted as Kubernetes writes them`(millis: Long, text: String) {
        CpuQuantity.format(millis) shouldBe text
    }
}
