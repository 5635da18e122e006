package dev.danki.cluster.status

import java.time.Instant

/** What the node agent knows of one pod at one moment, from which its status is computed. */
data class PodObservation(
    val containers: List<ContainerSnapshot>,
    /** Null while the pod has no network (it could not be set up). */
    val podIp: String?,
    val hostIp: String,
    /** When the agent began running the pod; `status.startTime` until the API server has one. */
    val startedHere: Instant,
    /** Set when the node failed the pod itself (past its active deadline); the phase is then Failed. */
    val failure: PodFailure? = null,
)
