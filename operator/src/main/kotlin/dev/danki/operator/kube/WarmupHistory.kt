package dev.danki.operator.kube

import com.fasterxml.jackson.annotation.JsonInclude
import com.fasterxml.jackson.annotation.JsonPropertyDescription
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn
import io.fabric8.kubernetes.api.model.Namespaced
import io.fabric8.kubernetes.client.CustomResource
import io.fabric8.kubernetes.model.annotation.Group
import io.fabric8.kubernetes.model.annotation.Kind
import io.fabric8.kubernetes.model.annotation.Plural
import io.fabric8.kubernetes.model.annotation.ShortNames
import io.fabric8.kubernetes.model.annotation.Singular
import io.fabric8.kubernetes.model.annotation.Version

/**
 * The last warm-up results of one Deployment, kept after their pods and WarmupRuns are gone: one
 * object per Deployment, named after it and owned by it, holding at most `retention` entries, newest
 * first. A WarmupRun lives and dies with its pod (so nothing half-open outlives a pod); this summary
 * is what a runbook reads a week later to take its lead time from the last real scale-up.
 */
@Group(Keys.GROUP)
@Version(Keys.VERSION)
@Kind(Keys.HISTORY_KIND)
@Plural("warmuphistories")
@Singular("warmuphistory")
@ShortNames("whist")
@AdditionalPrinterColumn(name = "RESULTS", jsonPath = ".status.recorded", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "LAST", jsonPath = ".status.entries[0].phase")
@AdditionalPrinterColumn(
    name = "LAST-WARM-P95",
    jsonPath = ".status.entries[0].warm.p95",
    type = AdditionalPrinterColumn.Type.NUMBER,
)
@AdditionalPrinterColumn(name = "LAST-DURATION", jsonPath = ".status.entries[0].duration")
@AdditionalPrinterColumn(
    name = "LAST-ENDED",
    jsonPath = ".status.entries[0].completionTime",
    type = AdditionalPrinterColumn.Type.DATE,
)
class WarmupHistory :
    CustomResource<WarmupHistorySpec, WarmupHistoryStatus>(),
    Namespaced

/** Whose history this is. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class WarmupHistorySpec {
    @JsonPropertyDescription("Name of the Deployment whose warm-ups are recorded.")
    var deployment: String? = null
}

/** The kept results, newest first. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class WarmupHistoryStatus {
    @JsonPropertyDescription("How many results are kept (the operator's history retention when it last wrote).")
    var retention: Int? = null

    @JsonPropertyDescription("Results recorded since this history was created, kept or not.")
    var recorded: Long? = null

    @JsonPropertyDescription("The last results, newest first.")
    var entries: List<WarmupHistoryEntry>? = null
}

/** One finished warm-up: what a WarmupRun said when it ended (Succeeded or Failed). */
@JsonInclude(JsonInclude.Include.NON_NULL)
class WarmupHistoryEntry {
    @JsonPropertyDescription("Name of the WarmupRun (gone with its pod).")
    var run: String? = null

    @JsonPropertyDescription("Name of the warmed pod.")
    var pod: String? = null

    @JsonPropertyDescription("Name of the node the pod ran on.")
    var node: String? = null

    @JsonPropertyDescription("Succeeded or Failed.")
    var phase: String? = null

    @JsonPropertyDescription("The run's reason: Succeeded, or why it failed.")
    var reason: String? = null

    @JsonPropertyDescription("Why warm-up stopped: Converged, JitSettled, TargetReached, MaxRequests or Timeout.")
    var stopReason: String? = null

    @JsonPropertyDescription("When the operator saw the pod's containers ready (or the run was retried).")
    var startTime: String? = null
    var completionTime: String? = null

    @JsonPropertyDescription("Time from the pod's containers being ready to the decision, e.g. 17.4s.")
    var duration: String? = null

    @JsonPropertyDescription("Of the duration, the time the warm-up waited for a slot, e.g. 0.1s.")
    var queueWait: String? = null
    var requests: Long? = null
    var cold: LatencyPercentiles? = null
    var warm: LatencyPercentiles? = null
}
