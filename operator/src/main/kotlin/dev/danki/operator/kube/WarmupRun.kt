package dev.danki.operator.kube

import com.fasterxml.jackson.annotation.JsonInclude
import com.fasterxml.jackson.annotation.JsonPropertyDescription
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn
import io.fabric8.kubernetes.api.model.Condition
import io.fabric8.kubernetes.api.model.Namespaced
import io.fabric8.kubernetes.client.CustomResource
import io.fabric8.kubernetes.model.annotation.Group
import io.fabric8.kubernetes.model.annotation.Kind
import io.fabric8.kubernetes.model.annotation.Plural
import io.fabric8.kubernetes.model.annotation.ShortNames
import io.fabric8.kubernetes.model.annotation.Singular
import io.fabric8.kubernetes.model.annotation.Version

/**
 * The record of one pod's warm-up: created when the pod qualifies, owned by the pod (so it is
 * garbage-collected with it), and holding the cold and warm percentiles as proof. The printer columns
 * are listed in the order `kubectl get` shows them; [PrinterColumnOrder] restores that order after
 * fabric8's crd-generator sorted them by JSON path.
 */
@Group(Keys.GROUP)
@Version(Keys.VERSION)
@Kind(Keys.RUN_KIND)
@Plural("warmupruns")
@Singular("warmuprun")
@ShortNames("wr")
@AdditionalPrinterColumn(name = "POD", jsonPath = ".spec.podName")
@AdditionalPrinterColumn(name = "PHASE", jsonPath = ".status.phase")
@AdditionalPrinterColumn(name = "WAITED", jsonPath = ".status.queueWait")
@AdditionalPrinterColumn(name = "COLD-P95", jsonPath = ".status.cold.p95", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "WARM-P95", jsonPath = ".status.warm.p95", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(
    name = "REQUESTS",
    jsonPath = ".status.requests.total",
    type = AdditionalPrinterColumn.Type.INTEGER,
)
@AdditionalPrinterColumn(name = "STOP", jsonPath = ".status.stopReason")
@AdditionalPrinterColumn(name = "BOOST", jsonPath = ".status.cpuBoost.summary")
@AdditionalPrinterColumn(name = "DURATION", jsonPath = ".status.duration")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE,
)
class WarmupRun :
    CustomResource<WarmupRunSpec, WarmupRunStatus>(),
    Namespaced {
    companion object {
        const val PHASE_PENDING = "Pending"
        const val PHASE_RUNNING = "Running"
        const val PHASE_SUCCEEDED = "Succeeded"
        const val PHASE_FAILED = "Failed"

        /** Ended without a result: the pod's containers restarted (a newer run took over) or warm-up was disabled. */
        const val PHASE_CANCELLED = "Cancelled"
    }
}

/** What to warm: the pod, at which container restart count, and where. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class WarmupRunSpec {
    @JsonPropertyDescription("Name of the warmed pod.")
    var podName: String? = null

    @JsonPropertyDescription("UID of the warmed pod.")
    var podUid: String? = null

    @JsonPropertyDescription("Deployment the pod belongs to, if any.")
    var deployment: String? = null

    @JsonPropertyDescription("Sum of the pod's container restart counts when this run was created.")
    var restartCount: Int? = null

    @JsonPropertyDescription("Failure policy in force: open or closed.")
    var failurePolicy: String? = null

    @JsonPropertyDescription("Budget from ContainersReady to a decision, in seconds.")
    var timeoutSeconds: Long? = null
}

/** Latency percentiles of one pass, in milliseconds, and how the pass was measured. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class LatencyPercentiles {
    var p25: Double? = null
    var p50: Double? = null
    var p75: Double? = null
    var p90: Double? = null
    var p95: Double? = null

    @JsonPropertyDescription(
        "Where the figures come from: open (a pass of its own, sent at ratePerSecond whatever the answers " +
            "took, as users arrive), warmup (the warm-up's first requests, concurrency in flight) or closed " +
            "(a pass of its own, concurrency in flight: the warm figures when the cold came from the warm-up).",
    )
    var source: String? = null

    @JsonPropertyDescription("Requests the figures rest on.")
    var requests: Long? = null

    @JsonPropertyDescription("Requests per second of an open pass.")
    var ratePerSecond: Double? = null

    @JsonPropertyDescription("Requests in flight, for figures taken from the warm-up or a closed pass.")
    var concurrency: Int? = null
}

/** Requests sent in each phase. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class RequestCounts {
    var cold: Long? = null
    var warmup: Long? = null
    var warm: Long? = null
    var total: Long? = null
    var failed: Long? = null
}

/** Why the warm-up stopped where it did: the stop rule's evidence. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class StopEvidence {
    @JsonPropertyDescription(
        "Rule that judged the warm-up: throughput (the pod stopped getting faster: the median requests/s of the " +
            "last window of blocks gained at most the tolerance over the window before), jit (that, and the " +
            "JIT compiler's share of the wall time quiet) or cpu (the JIT compiler quiet, and the pod's CPU per " +
            "request, from its process CPU counter, fell by at most the tolerance from one window to the next, " +
            "which a change in the pod's share of the CPU does not move).",
    )
    var rule: String? = null

    @JsonPropertyDescription("Warm-up requests in flight at once.")
    var concurrency: Int? = null

    @JsonPropertyDescription("Requests the stop rules judged: the warm-up's, the cold figures' first ones included.")
    var requests: Long? = null

    @JsonPropertyDescription(
        "Warm-up requests sent before any stop rule was asked: danki.dev/min-warmup-requests, or fewer by " +
            "default for a pod whose JVM started from its AOT cache.",
    )
    var minRequests: Int? = null

    @JsonPropertyDescription("Blocks of answers the stop rules judged.")
    var blocks: Int? = null

    @JsonPropertyDescription("Answers per block.")
    var blockSize: Int? = null

    @JsonPropertyDescription("Blocks per window: the throughput rule compares the last window with the one before.")
    var window: Int? = null

    @JsonPropertyDescription(
        "Gain of a window's median requests/s over the window before that still counted as warming.",
    )
    var tolerance: Double? = null

    @JsonPropertyDescription("P95 of the last block, ms.")
    var lastBlockP95: Double? = null

    @JsonPropertyDescription("Requests/s the pod answered in the last block.")
    var lastBlockRate: Double? = null

    @JsonPropertyDescription("Median requests/s of the last window of blocks.")
    var recentRate: Double? = null

    @JsonPropertyDescription("Median requests/s of the window before it.")
    var earlierRate: Double? = null

    @JsonPropertyDescription("Median CPU ms per request of the last window (the cpu rule).")
    var recentCpuPerRequestMillis: Double? = null

    @JsonPropertyDescription("Median CPU ms per request of the window before it (the cpu rule).")
    var earlierCpuPerRequestMillis: Double? = null

    @JsonPropertyDescription("Warm-up requests per second the pod took.")
    var requestsPerSecond: Double? = null

    @JsonPropertyDescription("Seconds of low-rate requests after the warm-up, in which its queued compiles finished.")
    var drainSeconds: Double? = null

    @JsonPropertyDescription("JIT compile time the pod spent during the warm-up, ms (with danki.dev/jit-metrics).")
    var jitCompileMillis: Double? = null

    @JsonPropertyDescription(
        "JIT compile time between the last two scrapes over the wall time between them: elapsed time summed " +
            "over the compiler threads, so above 1 when they wait for CPU.",
    )
    var jitLastShare: Double? = null

    @JsonPropertyDescription("JIT counter read, e.g. jvm_compilation_time_ms_total.")
    var jitMetric: String? = null

    @JsonPropertyDescription("Process CPU counter read beside it (the cpu rule), e.g. process_cpu_time_ns_total.")
    var cpuMetric: String? = null

    @JsonPropertyDescription("Why the JIT rule could not be used, so the throughput rule decided alone.")
    var jitError: String? = null
}

/** The CPU boost of a gated pod (`danki.dev/warmup-cpu`): an in-place resize, and its restore before the gate. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class CpuBoostStatus {
    @JsonPropertyDescription(
        "Boosted (raised, not yet restored), Restored, Skipped (nothing to raise), Refused (the cluster or " +
            "the chart said no; the warm-up ran at the pod's own CPU) or NotRestored (the restore failed).",
    )
    var state: String? = null

    @JsonPropertyDescription("What kubectl get shows, e.g. 200m->1, or the state when there was no boost.")
    var summary: String? = null

    @JsonPropertyDescription("The container whose CPU limit was raised: the one serving the warm-up port.")
    var container: String? = null

    @JsonPropertyDescription("The boost asked for: danki.dev/warmup-cpu.")
    var cpu: String? = null

    @JsonPropertyDescription("The container's own CPU limit, restored before the gate.")
    var fromLimit: String? = null

    @JsonPropertyDescription("The container's own CPU request, raised with the limit only in a Guaranteed pod.")
    var fromRequest: String? = null

    @JsonPropertyDescription("When the kubelet reported the raised limit in the pod's status.")
    var boostedAt: String? = null

    @JsonPropertyDescription("When the kubelet reported the pod's own limit again, before the gate was set.")
    var restoredAt: String? = null
    var message: String? = null

    companion object {
        const val BOOSTED = "Boosted"
        const val RESTORED = "Restored"
        const val SKIPPED = "Skipped"
        const val REFUSED = "Refused"
        const val NOT_RESTORED = "NotRestored"
    }
}

/** Where the run is and what it measured. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class WarmupRunStatus {
    @JsonPropertyDescription("Pending, Running, Succeeded, Failed or Cancelled.")
    var phase: String? = null
    var podName: String? = null
    var podIP: String? = null
    var target: String? = null
    var startTime: String? = null
    var completionTime: String? = null

    @JsonPropertyDescription("Latest moment a decision is due: ContainersReady plus the timeout.")
    var deadline: String? = null

    @JsonPropertyDescription("k6 attempts so far (failures are retried with back-off within the timeout).")
    var attempts: Int? = null
    var requests: RequestCounts? = null
    var cold: LatencyPercentiles? = null
    var warm: LatencyPercentiles? = null

    @JsonPropertyDescription("Why warm-up stopped: Converged, JitSettled, TargetReached, MaxRequests or Timeout.")
    var stopReason: String? = null

    @JsonPropertyDescription("The stop rule's evidence: requests, blocks, last block P95, JIT time.")
    var stopEvidence: StopEvidence? = null

    @JsonPropertyDescription("What the custom flow's notes() reported (danki.dev/script): at most 10 short texts.")
    var scriptNotes: List<String>? = null

    @JsonPropertyDescription(
        "Time from the operator seeing the pod's containers ready to its warm-up taking a slot, e.g. 0.1s.",
    )
    var queueWait: String? = null

    @JsonPropertyDescription("Wall time of the run, e.g. 12.3s.")
    var duration: String? = null

    @JsonPropertyDescription("Milliseconds from the operator seeing ContainersReady to the first warm-up request.")
    var reactionMillis: Long? = null

    @JsonPropertyDescription("Milliseconds from starting the k6 process to its first request (part of reactionMillis).")
    var k6StartupMillis: Long? = null

    @JsonPropertyDescription(
        "Times this run was tried again after a failure: a danki.dev/rewarm request, changed warm-up " +
            "annotations, or a failure on danki's side (QueueTimeout, K6NotStarted) of a pod held closed.",
    )
    var retries: Int? = null

    @JsonPropertyDescription("Why the run was last tried again.")
    var retryCause: String? = null

    @JsonPropertyDescription("When the run was last tried again; its timeout counts from here.")
    var retryTime: String? = null

    @JsonPropertyDescription("The pod's danki.dev/rewarm value this run has answered; a new value asks for a new try.")
    var rewarm: String? = null

    @JsonPropertyDescription(
        "What the pod's JVM made of the Deployment's AOT cache (danki.dev/aot-cache): used, absent (why) " +
            "or rejected (why); unset for a pod given no cache.",
    )
    var aotCache: String? = null

    @JsonPropertyDescription("The CPU boost while the pod was gated (danki.dev/warmup-cpu); unset without one.")
    var cpuBoost: CpuBoostStatus? = null

    @JsonPropertyDescription(
        "Digest of the Deployment's danki.dev annotations the run used; a change retries a closed failure.",
    )
    var configDigest: String? = null
    var reason: String? = null
    var message: String? = null
    var conditions: List<Condition>? = null
}
