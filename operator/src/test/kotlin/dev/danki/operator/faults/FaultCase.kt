package dev.danki.operator.faults

import com.fasterxml.jackson.databind.ObjectMapper

/**
 * One fault case's record, printed as one `FAULT {json}` line that tools/reliability-doc.py turns
 * into docs/reliability.md: what was done, how long until every pod was decided (from the fault),
 * how each pod and WarmupRun ended, and what was left behind.
 */
class FaultCase(
    val name: String,
    val title: String,
) {
    private val started = System.nanoTime()

    /** What the case did, in order (deployments, the fault itself, restarts). */
    val done = mutableListOf<String>()

    /** Observations beyond the outcome (runs in flight at the fault, health answers, ...). */
    val notes = mutableMapOf<String, Any?>()
    var faultAt: Long? = null
    var decidedSeconds: Double? = null
    var outcomes: Map<String, Int> = emptyMap()
    var runs: Map<String, Int> = emptyMap()
    var leftovers: Map<String, List<String>>? = null
    var cleanSeconds: Double? = null
    val failures = mutableListOf<String>()

    fun did(what: String) {
        done += what
        println("FAULT-STEP $name +${secondsSince(started)}s: $what")
    }

    /** Marks the moment of the fault: decidedSeconds counts from here. */
    fun fault(what: String) {
        faultAt = System.nanoTime()
        did(what)
    }

    fun line(): String =
        "FAULT " +
            json.writeValueAsString(
                linkedMapOf(
                    "case" to name,
                    "title" to title,
                    "done" to done,
                    "decidedSeconds" to decidedSeconds,
                    "outcomes" to outcomes,
                    "runs" to runs,
                    "leftovers" to leftovers,
                    "cleanSeconds" to cleanSeconds,
                    "notes" to notes,
                    "totalSeconds" to secondsSince(started),
                    "passed" to failures.isEmpty(),
                    "failures" to failures,
                ),
            )

    companion object {
        private val json = ObjectMapper()

        fun secondsSince(nanos: Long): Double = Math.round((System.nanoTime() - nanos) / NANOS_PER_DECI) / TENTHS

        private const val NANOS_PER_DECI = 1e8
        private const val TENTHS = 10.0
    }
}
