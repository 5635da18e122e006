package dev.danki.cli

import io.fabric8.kubernetes.api.model.PodSpec
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceQuota
import java.math.BigDecimal

/**
 * Whether the namespace's ResourceQuotas leave room for [added] more pods like the template: the
 * first capacity check, before anything is scaled. Each problem names the quota, the resource and
 * the figures, e.g. `ResourceQuota compute: requests.cpu 1.8 used + 3 x 0.5 > 3 hard`.
 */
object QuotaCheck {
    fun problems(quotas: List<ResourceQuota>, template: PodSpec, added: Int): List<String> {
        if (added <= 0) return emptyList()
        val perPod = perPod(template)
        return quotas.flatMap { quota ->
            val hard = quota.status?.hard?.takeIf { it.isNotEmpty() } ?: quota.spec?.hard.orEmpty()
            val used = quota.status?.used.orEmpty()
            hard.mapNotNull { (resource, limit) ->
                val each = perPod[resource] ?: return@mapNotNull null
                val now = used[resource]?.let(Quantity::getAmountInBytes) ?: BigDecimal.ZERO
                val max = Quantity.getAmountInBytes(limit)
                val after = now + each * BigDecimal(added)
                if (after <= max) {
                    null
                } else {
                    "ResourceQuota ${quota.metadata.name}: $resource ${plain(now)} used + $added x ${plain(each)} " +
                        "> ${plain(max)} hard"
                }
            }
        }
    }

    /** What one pod of the template counts against each quota resource. */
    fun perPod(template: PodSpec): Map<String, BigDecimal> {
        val containers = template.containers.orEmpty()

        fun sum(
            pick: (io.fabric8.kubernetes.api.model.Container) -> Map<String, Quantity>?,
            resource: String,
        ): BigDecimal =
            containers.fold(BigDecimal.ZERO) { acc, c ->
                acc + (pick(c)?.get(resource)?.let(Quantity::getAmountInBytes) ?: BigDecimal.ZERO)
            }
        val cpu = sum({ it.resources?.requests }, "cpu")
        val memory = sum({ it.resources?.requests }, "memory")
        return mapOf(
            "pods" to BigDecimal.ONE,
            "count/pods" to BigDecimal.ONE,
            "cpu" to cpu,
            "requests.cpu" to cpu,
            "memory" to memory,
            "requests.memory" to memory,
            "limits.cpu" to sum({ it.resources?.limits }, "cpu"),
            "limits.memory" to sum({ it.resources?.limits }, "memory"),
        )
    }

    private fun plain(value: BigDecimal): String = value.stripTrailingZeros().toPlainString()
}
