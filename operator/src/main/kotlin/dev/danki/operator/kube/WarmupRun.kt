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
@AdditionalPrinterColumn(name = "COLD-P95", jsonPath = ".status.cold.p95", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(name = "WARM-P95", jsonPath = ".status.warm.p95", type = AdditionalPrinterColumn.Type.NUMBER)
@AdditionalPrinterColumn(
    name = "REQUESTS",
    jsonPath = ".status.requests.total",
    type = AdditionalPrinterColumn.Type.INTEGER,
)
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

/** Latency percentiles of one pass, in milliseconds. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class LatencyPercentiles {
    var p25: Double? = null
    var p50: Double? = null
    var p75: Double? = null
    var p90: Double? = null
    var p95: Double? = null
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

/** Where the run is and what it measured. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class WarmupRunStatus {
    @JsonPropertyDescription("Pending, Running, Succeeded or Failed.")
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

    @JsonPropertyDescription("Why warm-up stopped: Converged, TargetReached, MaxRequests or Timeout.")
    var stopReason: String? = null

    @JsonPropertyDescription("Wall time of the run, e.g. 12.3s.")
    var duration: String? = null

    @JsonPropertyDescription("Milliseconds from the operator seeing ContainersReady to the first warm-up request.")
    var reactionMillis: Long? = null

    @JsonPropertyDescription("Milliseconds from starting the k6 process to its first request (part of reactionMillis).")
    var k6StartupMillis: Long? = null
    var reason: String? = null
    var message: String? = null
    var conditions: List<Condition>? = null
}
