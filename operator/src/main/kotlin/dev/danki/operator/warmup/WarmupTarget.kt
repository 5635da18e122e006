package dev.danki.operator.warmup

import io.fabric8.kubernetes.api.model.Pod

/**
 * Where a warm-up may send traffic: the pod's own address and nothing else. A pod on the node's
 * network (`hostNetwork`) shares the node's address, so its port annotation would reach any port of
 * the node; such pods are refused unless the operator is told to allow them.
 */
object WarmupTarget {
    /** Why danki must not warm [pod] at its pod IP, or null when it may. */
    fun refusal(pod: Pod, allowHostNetwork: Boolean): String? {
        val ip = pod.status?.podIP ?: return null
        val onNodeNetwork = pod.spec?.hostNetwork == true || ip == pod.status?.hostIP
        val listed =
            pod.status
                ?.podIPs
                .orEmpty()
                .map { it.ip }
        return when {
            listed.isNotEmpty() && ip !in listed -> {
                "pod IP $ip is not among the pod's own addresses $listed"
            }

            onNodeNetwork && !allowHostNetwork -> {
                "the pod uses the node's network (hostNetwork), so $ip is the node's address and a warm-up " +
                    "could reach any port of the node; danki warms only a pod's own address " +
                    "(the chart value allowHostNetwork=true allows it)"
            }

            else -> {
                null
            }
        }
    }
}
