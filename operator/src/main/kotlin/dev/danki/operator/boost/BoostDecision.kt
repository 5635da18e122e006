package dev.danki.operator.boost

import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.Pod

/**
 * Whether and how to raise a gated pod's CPU for its warm-up (`danki.dev/warmup-cpu`): the container
 * that serves the warm-up port gets the boost as its CPU limit. Pure: reads the pod, writes nothing.
 */
sealed interface BoostDecision {
    /**
     * Raise [container]'s CPU limit from [fromLimitMillis] to [toMillis]. A Guaranteed pod must stay
     * Guaranteed (a resize cannot change the QoS class), so its request moves too, from [fromRequestMillis].
     */
    data class Boost(
        val container: String,
        val fromLimitMillis: Long,
        val toMillis: Long,
        val fromRequestMillis: Long?,
    ) : BoostDecision

    /** A container's own CPU limit (and request, for a Guaranteed pod), before any boost. */
    data class OwnCpu(
        val container: String,
        val limitMillis: Long,
        val requestMillis: Long?,
    )

    /** No resize: [why] says so, in words for the WarmupRun. */
    data class Skip(
        val why: String,
    ) : BoostDecision

    companion object {
        private const val CPU = "cpu"
        private const val GUARANTEED = "Guaranteed"
        private const val NO_CEILING =
            "no allocatable CPU is known of a node it may run on, which caps the default boost"
        private const val GUARANTEED_DEFAULT =
            "a Guaranteed pod gets no default boost (its CPU request would rise with it, and the scheduler " +
                "would have to fit that); danki.dev/warmup-cpu asks for one"

        /**
         * [amount]: the boost asked for, or danki's default, which the allocatable CPU of the [nodes] the pod
         * may run on caps ([BoostCeiling]; none known: no default boost); they are read only for the default.
         * [own]: the container's own CPU as an earlier boost of this pod recorded it (the pod shows the
         * boost); null to read it from the pod. [guaranteed]: the pod's QoS class is Guaranteed (at
         * admission the API server has not written it yet: [PodQos.guaranteed] reads it from the spec).
         */
        fun of(
            pod: Pod,
            port: Int,
            amount: BoostAmount,
            own: OwnCpu? = null,
            guaranteed: Boolean = pod.status?.qosClass == GUARANTEED,
            nodes: () -> Collection<Node> = { emptyList() },
        ): BoostDecision {
            val containers = pod.spec?.containers.orEmpty()
            val container =
                containers.firstOrNull { c -> c.name == own?.container }
                    ?: containers.firstOrNull { c -> c.ports.orEmpty().any { it.containerPort == port } }
                    ?: containers.firstOrNull()
                    ?: return Skip("the pod has no container")
            val limit =
                own?.limitMillis
                    ?: CpuQuantity.millisOf(container.resources?.limits?.get(CPU))
                    ?: return Skip("container ${container.name} has no CPU limit: nothing holds its JVM back to raise")
            // the default above what a node can give buys nothing, and a node whose pods' cgroup has a quota refuses it
            val ceiling = if (amount == BoostAmount.JvmSized) BoostCeiling.millisFor(pod, nodes()) else null
            defaultRefused(amount, guaranteed && own == null, ceiling)?.let { return it }
            val asked = amount.millisFor(limit)
            val boostMillis = ceiling?.let { minOf(asked, it) } ?: asked
            val request = if (own != null) own.requestMillis else requestOf(container).takeIf { guaranteed }
            val what = "${CpuQuantity.format(limit)} is at or above the boost, ${CpuQuantity.format(boostMillis)}"
            return if (limit >= boostMillis) {
                Skip("container ${container.name}'s CPU limit $what")
            } else {
                Boost(container.name, limit, boostMillis, request)
            }
        }

        /**
         * Why danki's default boost does not apply, if it does not: a Guaranteed pod's request would rise
         * with it, which the scheduler must fit ([guaranteedDefault]), or no node's CPU is known to cap it.
         */
        private fun defaultRefused(amount: BoostAmount, guaranteedDefault: Boolean, ceilingMillis: Long?): Skip? =
            when {
                amount != BoostAmount.JvmSized -> null
                guaranteedDefault -> Skip(GUARANTEED_DEFAULT)
                ceilingMillis == null -> Skip(NO_CEILING)
                else -> null
            }

        private fun requestOf(container: Container) = CpuQuantity.millisOf(container.resources?.requests?.get(CPU))
    }
}
