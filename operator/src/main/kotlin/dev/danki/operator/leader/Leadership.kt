package dev.danki.operator.leader

import io.fabric8.kubernetes.client.KubernetesClientException
import java.util.concurrent.atomic.AtomicBoolean

/**
 * Whether this replica leads, as its leader election last said: the fence every write of the leader's
 * own passes (a pod's gate, WarmupRuns, evictions, resizes, training and runner pods, templates, the
 * history). A replica that lost its Lease takes a few seconds to stop: JOSDK finishes the reconciles
 * under way, and the pool kills its k6 processes. Another replica may lead by then, so from the moment
 * the election says the Lease is lost, every such write is refused here instead of racing the new
 * leader's. The election says so before the Lease can expire for the others (renew deadline 10 s,
 * Lease 15 s), so the two never write at once.
 */
class Leadership(
    leading: Boolean = false,
) {
    private val state = AtomicBoolean(leading)

    val leading: Boolean get() = state.get()

    /** This replica won the Lease (or leads without an election). */
    fun acquired() = state.set(true)

    /** The Lease is lost, or this replica is stopping: from now on every fenced write is refused. */
    fun lost() = state.set(false)

    /** Throws [NotLeading] unless this replica leads; [write] names what was about to be written. */
    fun check(write: String) {
        if (!state.get()) throw NotLeading(write)
    }

    companion object {
        /** For a component that writes without an election of its own (tests, the CLI). */
        fun always() = Leadership(leading = true)
    }
}

/**
 * A write refused because this replica no longer leads. A client exception, so every path that handles
 * a failed write (kept for the next reconcile, reported) handles this one: the next leader makes it.
 */
class NotLeading(
    write: String,
) : KubernetesClientException("$write not written: this replica no longer leads")
