package dev.danki.operator.warmup

/** Whose warm-up a run is: the tenant unit that fair sharing counts (a Deployment in a namespace). */
data class RunOwner(
    val namespace: String,
    val deployment: String,
) {
    companion object {
        /** For a pod without a Deployment: the pod alone, in its namespace. */
        fun of(podKey: String): RunOwner {
            val (namespace, pod) = podKey.split('/', limit = 2).let { it[0] to it.getOrElse(1) { "" } }
            return RunOwner(namespace, "pod:$pod")
        }
    }
}
