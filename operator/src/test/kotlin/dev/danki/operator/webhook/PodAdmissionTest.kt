package dev.danki.operator.webhook

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.metrics.WarmupMetrics
import io.fabric8.kubernetes.client.utils.KubernetesSerialization
import io.kotest.assertions.throwables.shouldThrow
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.Test
import java.util.Base64

/** AdmissionReviews as the API server sends them, answered through fabric8's admission.v1 model. */
class PodAdmissionTest {
    private val metrics = WarmupMetrics()
    private val admission =
        PodAdmission(metrics, OptedInExam.lookup(metrics), KubernetesSerialization())
    private val json = ObjectMapper()

    private fun review(
        operation: String = "CREATE",
        kind: String = "Pod",
        typeMeta: String = """"apiVersion":"v1","kind":"Pod",""",
        owner: String = "exam-5d8f",
    ): Map<*, *> {
        val body =
            """
            {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
             "kind":{"group":"","version":"v1","kind":"$kind"},"operation":"$operation","namespace":"shop",
             "object":{$typeMeta"metadata":{"generateName":"$owner-","labels":{"pod-template-hash":"5d8f"},
             "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"$owner","uid":"r",
             "controller":true}]},"spec":{"containers":[{"name":"app","image":"exam"}]}}}}
            """.trimIndent()
        val answer = json.readValue(admission.review(body.toByteArray()), Map::class.java)
        answer["apiVersion"] shouldBe "admission.k8s.io/v1"
        answer["kind"] shouldBe "AdmissionReview"
        return answer["response"] as Map<*, *>
    }

    private fun Map<*, *>.patch() = String(Base64.getDecoder().decode(this["patch"] as String))

    @Test
    fun `a pod of an opted-in Deployment is allowed with the gate and the label as a JSON patch`() {
        val response = review()
        response["uid"] shouldBe "u-1"
        response["allowed"] shouldBe true
        response["patchType"] shouldBe "JSONPatch"
        response.patch() shouldBe
            """[{"op":"add","path":"/spec/readinessGates","value":[{"conditionType":"danki.dev/warmed"}]},""" +
            """{"op":"add","path":"/metadata/labels/danki.dev~1warmup","value":"enabled"}]"""
    }

    @Test
    fun `a pod sent without its apiVersion and kind is still read as a pod`() {
        review(typeMeta = "")["patchType"] shouldBe "JSONPatch"
    }

    @Test
    fun `anything but a pod CREATE of an opted-in Deployment is allowed unchanged`() {
        for (response in listOf(review(operation = "UPDATE"), review(kind = "Service"), review(owner = "other-1a2b"))) {
            response["allowed"] shouldBe true
            response.containsKey("patch") shouldBe false
            response.containsKey("patchType") shouldBe false
        }
    }

    @Test
    fun `a body that is not an AdmissionReview request is refused, for the server to answer 400`() {
        shouldThrow<IllegalArgumentException> { admission.review("""{"kind":"AdmissionReview"}""".toByteArray()) }
        shouldThrow<Exception> { admission.review("not json".toByteArray()) }
    }
}
