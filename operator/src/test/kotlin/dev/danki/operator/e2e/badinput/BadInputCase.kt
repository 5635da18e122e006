package dev.danki.operator.e2e.badinput

/**
 * One malformed warm-up configuration of the bad-input suite: what the user wrote (annotations on the
 * Deployment or its pod template, and how the target answers) and what danki must make of it.
 */
data class BadInputCase(
    /** The Deployment's name, also the row's key in docs/bad-input.md. */
    val name: String,
    /** What is wrong, in the user's words: the row's first column. */
    val mistake: String,
    val annotations: Map<String, String>,
    val templateAnnotations: Map<String, String> = emptyMap(),
    /** The http-status target's behaviour (STATUS, SCHEDULE); empty: it answers 200. */
    val target: Map<String, String> = emptyMap(),
    /** The template carries danki's gate already, as an opted-in Deployment's does (no rollout). */
    val gated: Boolean = true,
    val expect: Expectation,
)

/** What danki must do with a [BadInputCase]; null fields mean "none" (no Event, no run, no gate). */
data class Expectation(
    /** An Event with this reason, on the Deployment or the pod ... */
    val eventReason: String?,
    /** ... whose message contains this text. */
    val eventText: String? = null,
    /** The reason of the pod's WarmupRun; null: the pod gets no WarmupRun. */
    val runReason: String?,
    /** The reason on the pod's `danki.dev/warmed` condition; null: the pod carries no gate. */
    val gateReason: String?,
    /** Whether the pod ends Ready (in its Service). */
    val ready: Boolean,
    /**
     * The most seconds from the pod's containers being ready to danki's decision (its gate condition),
     * and that the pod ends Ready. The kubelet's own step from that condition to Ready is not bounded.
     */
    val maxDecidedSeconds: Long? = null,
    /** Whether the pod's run takes a warm-up slot (a queue wait or a k6 attempt); null: not checked. */
    val takesSlot: Boolean? = null,
)
