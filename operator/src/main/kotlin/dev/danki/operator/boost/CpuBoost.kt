package dev.danki.operator.boost

import com.fasterxml.jackson.databind.ObjectMapper
import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.kube.WarmupRunStatus
import dev.danki.operator.warmup.WarmupPlan
import io.fabric8.kubernetes.api.model.Node
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.KubernetesClientException
import org.slf4j.LoggerFactory
import java.time.Duration
import java.time.Instant
import java.time.temporal.ChronoUnit

/**
 * A gated pod's CPU boost (`danki.dev/warmup-cpu`): the JIT is CPU-bound and a gated pod serves nobody,
 * so the warmed container's CPU limit is raised for its warm-up and restored before its gate is set.
 * The record in the WarmupRun is written before each resize, and no resize is asked without it, so a
 * leader that takes over a boosted pod restores the pod's own limit, not the boost. A refused boost never
 * stops the warm-up: it runs at the pod's own CPU, with a Warning Event.
 */
class CpuBoost(
    private val resize: PodResize,
    private val events: EventRecorder,
    /** Whether the chart allows resizes (`cpuBoost.enabled`, which grants `patch` on `pods/resize`). */
    private val enabled: Boolean,
    /** Told how each boost ended: its final state, in lower case (`danki_cpu_boosts_total`). */
    private val onEnded: (String) -> Unit = {},
    /** The cluster's nodes (kube.NodeShapes): the pod's own caps the default boost ([BoostCeiling]). */
    private val nodes: () -> Collection<Node> = { emptyList() },
) {
    private val log = LoggerFactory.getLogger(CpuBoost::class.java)

    /**
     * Raises the pod's CPU as [plan] asks; [earlier] is the record of a run on this pod that a leader
     * left boosted. [save] writes the record with the run's status before the pod is resized, and throws
     * when the API server did not take it: the boost is then refused. Returns the record (also for a skip
     * or refusal), or null when the plan asks for none.
     */
    fun raise(pod: Pod, plan: WarmupPlan, earlier: CpuBoostStatus?, save: (CpuBoostStatus) -> Unit): CpuBoostStatus? {
        // a leader that stopped mid-warm-up left this pod boosted: restored at the end whatever the plan says now
        val left = earlier?.takeIf { it.state == CpuBoostStatus.BOOSTED }
        val amount = plan.warmupCpu ?: return left
        val record = CpuBoostStatus().apply { cpu = amount.describe() }
        if (!enabled) return refused(pod, record, "danki was installed without cpuBoost.enabled (no pods/resize)")
        return when (val decision = BoostDecision.of(pod, plan.port, amount, left?.let(::ownCpuOf), nodes = nodes)) {
            is BoostDecision.Skip -> left ?: record.apply { skipped(decision.why) }
            is BoostDecision.Boost -> boost(pod, decision, record, left, save)
        }
    }

    private fun boost(
        pod: Pod,
        boost: BoostDecision.Boost,
        record: CpuBoostStatus,
        left: CpuBoostStatus?,
        save: (CpuBoostStatus) -> Unit,
    ): CpuBoostStatus {
        record.apply {
            cpu = CpuQuantity.format(boost.toMillis)
            container = boost.container
            fromLimit = CpuQuantity.format(boost.fromLimitMillis)
            fromRequest = boost.fromRequestMillis?.let { CpuQuantity.format(it) }
            state = CpuBoostStatus.BOOSTED
            summary = "$fromLimit->$cpu"
        }
        try {
            save(record)
        } catch (e: KubernetesClientException) {
            // a leader that took over would find no record of the pod's own limit, and leave it boosted
            val why = "its record could not be written first (${apiError(e)}); no resize asked"
            val refusal = refused(pod, record, why)
            // a boost an earlier leader left is still on the pod, and its record still says so: restored at the end
            return left ?: refusal
        }
        return try {
            resize.request(pod, boost.container, boost.toMillis, boost.fromRequestMillis?.let { boost.toMillis })
            applied(pod, boost, record)
        } catch (e: KubernetesClientException) {
            val why = apiError(e)
            if (e.code in CLIENT_ERRORS) return refused(pod, record, "the API server refused the resize: $why")
            // no answer: the resize may have been applied, so the restore at the end puts the pod's own CPU back
            record.apply { message = Messages.cut("the resize's answer was lost ($why); restored at the end anyway") }
        }
    }

    private fun CpuBoostStatus.skipped(why: String) {
        state = CpuBoostStatus.SKIPPED
        summary = CpuBoostStatus.SKIPPED
        message = why
    }

    /**
     * After the warm-up, whatever its outcome: puts a boosted container's own CPU back and waits for the
     * kubelet, then counts how the boost ended. The record says how it went.
     */
    fun end(pod: Pod, record: CpuBoostStatus?) {
        if (record == null) return
        restore(pod, record)
        RESULTS[record.state]?.let(onEnded)
    }

    /**
     * Restores the boost left on a pod when its run ends without its warm-up (failed on its deadline,
     * released, superseded, closed from its gate): one a leader left in the run's [status], or the one the
     * webhook raised at admission. Returns the record as it ended, or null when none was left.
     */
    fun restoreLeft(pod: Pod, status: WarmupRunStatus?): CpuBoostStatus? = leftOn(pod, status)?.also { end(pod, it) }

    private fun restore(pod: Pod, record: CpuBoostStatus) {
        if (record.state != CpuBoostStatus.BOOSTED) return
        val own = ownCpuOf(record) ?: return
        try {
            resize.request(pod, own.container, own.limitMillis, own.requestMillis)
            when (val outcome = resize.await(pod, own.container, own.limitMillis, RESTORE_WAIT)) {
                PodResize.Outcome.Applied, PodResize.Outcome.Gone -> {
                    record.state = CpuBoostStatus.RESTORED
                    record.restoredAt = now()
                }

                else -> {
                    val why = (outcome as? PodResize.Outcome.NotApplied)?.let { "${it.reason}: ${it.message}" }
                    notRestored(
                        pod,
                        record,
                        "the kubelet had not applied it after ${RESTORE_WAIT.seconds}s ${why ?: ""}",
                    )
                }
            }
        } catch (e: KubernetesClientException) {
            if (e.code == NOT_FOUND) return
            notRestored(pod, record, "the API server refused it: ${apiError(e)}")
        }
    }

    /** The container's own CPU, as an earlier boost recorded it; null if the record lacks it. */
    private fun ownCpuOf(record: CpuBoostStatus): BoostDecision.OwnCpu? {
        val container = record.container ?: return null
        val limit = record.fromLimit?.let { CpuQuantity.parseMillis(it) } ?: return null
        return BoostDecision.OwnCpu(container, limit, record.fromRequest?.let { CpuQuantity.parseMillis(it) })
    }

    private fun applied(pod: Pod, boost: BoostDecision.Boost, record: CpuBoostStatus): CpuBoostStatus =
        when (val outcome = resize.await(pod, boost.container, boost.toMillis, BOOST_WAIT)) {
            PodResize.Outcome.Applied -> {
                record.apply { boostedAt = now() }
            }

            PodResize.Outcome.Gone -> {
                record
            }

            null -> {
                // still under way: the warm-up starts anyway, and the kubelet may apply it meanwhile
                record.apply { message = "asked; the kubelet had not applied it after ${BOOST_WAIT.toMillis()}ms" }
            }

            is PodResize.Outcome.NotApplied -> {
                if (outcome.reason == DEFERRED) {
                    record.apply { message = "deferred by the kubelet: ${outcome.message}" }
                } else {
                    // an infeasible resize would stay asked for: put the pod's own CPU back first
                    restore(pod, record)
                    refused(pod, record, "the kubelet refused it (${outcome.reason}): ${outcome.message}")
                }
            }
        }

    private fun refused(pod: Pod, record: CpuBoostStatus, why: String): CpuBoostStatus {
        record.state = CpuBoostStatus.REFUSED
        record.summary = CpuBoostStatus.REFUSED
        record.message = Messages.cut(why)
        val event = "CPU boost to ${record.cpu} refused; warming at the pod's own CPU: $why"
        warn(pod, Keys.EventReasons.CPU_BOOST_REFUSED, event, why, "CPU boost refused")
        return record
    }

    private fun notRestored(pod: Pod, record: CpuBoostStatus, why: String) {
        record.state = CpuBoostStatus.NOT_RESTORED
        val message = Messages.cut("restore to ${record.fromLimit} failed: $why")
        record.message = message
        warn(pod, Keys.EventReasons.CPU_BOOST_NOT_RESTORED, message, why, "CPU boost not restored")
    }

    /** The Warning Event on the pod, and the same in the log. */
    private fun warn(pod: Pod, reason: String, event: String, why: String, line: String) {
        events.warning(pod, reason, event)
        log
            .atWarn()
            .addKeyValue("namespace", pod.metadata.namespace)
            .addKeyValue("pod", pod.metadata.name)
            .addKeyValue("why", why)
            .log(line)
    }

    private fun apiError(e: KubernetesClientException) = "${e.code} ${e.status?.message ?: e.message}"

    private fun now() = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString()

    companion object {
        private val json = ObjectMapper()

        /**
         * The boost still on [pod]: one a leader left in its run's [status], else the one the webhook raised
         * at admission ([fromAdmission]). Null when neither is.
         */
        fun leftOn(pod: Pod, status: WarmupRunStatus?): CpuBoostStatus? = leftIn(status) ?: fromAdmission(pod)

        /**
         * The boost the webhook raised at [pod]'s admission, as a record of state Boosted, while its spec
         * still asks for more than its declared CPU ([DeclaredCpu]); null when it has none or is restored.
         * The declared CPU is read from the pod, where a tenant may have edited it: a restore never goes
         * above what the container has now, so an edited value can at most keep the boost the pod has.
         */
        fun fromAdmission(pod: Pod): CpuBoostStatus? {
            val declared = DeclaredCpu.of(pod) ?: return null
            val container =
                pod.spec
                    ?.containers
                    .orEmpty()
                    .firstOrNull { it.name == declared.container } ?: return null
            val limit =
                CpuQuantity.millisOf(container.resources?.limits?.get(CPU))?.takeIf { it > declared.limitMillis }
                    ?: return null
            val request = CpuQuantity.millisOf(container.resources?.requests?.get(CPU))
            val fromRequest = declared.requestMillis?.takeIf { request != null && it <= request }
            return CpuBoostStatus().apply {
                this.container = declared.container
                cpu = CpuQuantity.format(limit)
                fromLimit = CpuQuantity.format(declared.limitMillis)
                this.fromRequest = fromRequest?.let { CpuQuantity.format(it) }
                state = CpuBoostStatus.BOOSTED
                summary = "$fromLimit->$cpu"
                boostedAt = pod.metadata?.creationTimestamp
                message = "raised at admission"
            }
        }

        /**
         * A copy of the boost a leader left in a run's [status]: state Boosted, as it stopped before the
         * restore. A copy, as the status may be the informer's. Null when it left none.
         */
        fun leftIn(status: WarmupRunStatus?): CpuBoostStatus? =
            status
                ?.cpuBoost
                ?.takeIf { it.state == CpuBoostStatus.BOOSTED }
                ?.let { json.convertValue(it, CpuBoostStatus::class.java) }

        /** The kubelet applies a resize on its next pod sync, well under a second here. */
        private val BOOST_WAIT: Duration = Duration.ofSeconds(5)
        private val RESTORE_WAIT: Duration = Duration.ofSeconds(10)
        private const val DEFERRED = "Deferred"
        private const val NOT_FOUND = 404
        private const val CPU = "cpu"

        /** A 4xx is the API server's no; anything else may have lost an answer to a resize that was applied. */
        private val CLIENT_ERRORS = 400..499

        /** The metric's `result` of each final state. */
        private val RESULTS =
            mapOf(
                CpuBoostStatus.RESTORED to "restored",
                CpuBoostStatus.SKIPPED to "skipped",
                CpuBoostStatus.REFUSED to "refused",
                CpuBoostStatus.NOT_RESTORED to "not_restored",
            )
    }
}
