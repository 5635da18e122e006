package dev.danki.operator.warmup

/**
 * Why a warm-up stopped where it did, as `warmup.js` measured it: what a user reads to judge whether
 * the stop rule chose well.
 */
data class WarmupEvidence(
    /** `latency` (block P95 stopped improving) or `jit` (the JIT ran out of work). */
    val rule: String,
    /** Warm-up requests in flight at once. */
    val concurrency: Int,
    /** Warm-up requests sent. */
    val requests: Long,
    /** Blocks of answers the rules judged, and how many answers make one. */
    val blocks: Int,
    val blockSize: Int,
    /** P95 (ms) of the last block, and of the best block before the ones the latency rule compared. */
    val lastBlockP95: Double?,
    val earlierBestP95: Double?,
    /** Wall time of the warm-up phase, and the requests/s the pod took. */
    val seconds: Double?,
    val achievedRate: Double?,
    /** The JIT scrapes, when the plan named a metrics page. */
    val jit: JitEvidence?,
)

/** What the pod's JIT counter said during the warm-up. */
data class JitEvidence(
    val url: String,
    /** The counter found, e.g. `jvm_compilation_time_ms_total`; null when none was. */
    val metric: String?,
    /** JIT compile time spent during the warm-up, ms. */
    val compileMs: Double?,
    /** Compile time per block at the last scrape, ms. */
    val lastBlockMs: Double?,
    /** Why the JIT rule could not be used (the latency rule decided instead); null when it could. */
    val error: String?,
)
