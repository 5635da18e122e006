package dev.danki.cluster.status

/** Pod phase from its containers, following the kubelet's rules for pods without init containers. */
object PodPhases {
    const val PENDING = "Pending"
    const val RUNNING = "Running"
    const val SUCCEEDED = "Succeeded"
    const val FAILED = "Failed"

    /** Succeeded and Failed are final: nothing of the pod runs again. */
    fun isTerminal(phase: String?): Boolean = phase == SUCCEEDED || phase == FAILED

    fun compute(containers: List<ContainerSnapshot>): String {
        if (containers.isEmpty()) return PENDING
        val neverRan =
            containers.any { it.state is RunState.Waiting && it.lastTermination == null && it.restartCount == 0 }
        if (neverRan) return PENDING
        val allDone = containers.all { it.state is RunState.Terminated && !it.willRestart }
        if (!allDone) return RUNNING
        val allSucceeded = containers.all { (it.state as RunState.Terminated).exitCode == 0 }
        return if (allSucceeded) SUCCEEDED else FAILED
    }
}
