package dev.danki.operator.boost

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test

/** The declared CPU on a pod is a tenant's to edit: anything but the webhook's own form reads as none. */
class DeclaredCpuTest {
    private fun pod(value: String?): Pod =
        PodBuilder()
            .withNewMetadata()
            .withName("web-1")
            .apply { value?.let { addToAnnotations(Keys.DECLARED_CPU_ANNOTATION, it) } }
            .endMetadata()
            .build()

    @Test
    fun `the webhook's value reads back as it was written`() {
        val declared = DeclaredCpu("app", 500, 500)
        DeclaredCpu.of(pod(declared.annotation())) shouldBe declared
        DeclaredCpu.of(pod(DeclaredCpu("app", 1_500, null).annotation())) shouldBe DeclaredCpu("app", 1_500, null)
    }

    @Test
    fun `a missing, malformed or odd value is none`() {
        for (value in listOf(
            null,
            "",
            "500m",
            "{}",
            """{"container":"app"}""",
            """{"container":"","limit":"500m"}""",
            """{"container":"app","limit":"1e3"}""",
            """{"container":"app","limit":"500m","request":7}""",
            """{"container":"app","limit":"500m","request":"lots"}""",
            "[1,2]",
        )) {
            DeclaredCpu.of(pod(value)) shouldBe null
        }
    }
}
