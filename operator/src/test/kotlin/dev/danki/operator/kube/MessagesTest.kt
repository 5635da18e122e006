package dev.danki.operator.kube

import io.kotest.matchers.shouldBe
import io.kotest.matchers.string.shouldEndWith
import org.junit.jupiter.api.Test

class MessagesTest {
    @Test
    fun `a long message is cut to the limit and says how much was left out`() {
        val cut = Messages.cut("x".repeat(5_000))
        (cut.length <= Messages.MAX_LENGTH) shouldBe true
        val kept = cut.substringBefore(" ...").length
        cut shouldEndWith "(${5_000 - kept} more characters)"
        Messages.cut("short") shouldBe "short"
    }

    @Test
    fun `a long value is quoted by its start and its size`() {
        Messages.quote("y".repeat(1_000)) shouldBe "y".repeat(120) + "... (1000 characters)"
    }

    @Test
    fun `digests have one size whatever the message`() {
        Messages.digest("a").length shouldBe 64
        // lower-case hex: fingerprints in AotCache statuses were written so and are compared as text
        Messages.digest("abc") shouldBe "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        Messages.digest("b".repeat(200_000)).length shouldBe 64
    }
}
