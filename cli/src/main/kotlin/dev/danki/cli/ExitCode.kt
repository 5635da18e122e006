package dev.danki.cli

/**
 * The CLI's exit codes, one per kind of outcome, so a runbook or CI job can branch on them.
 * docs/cli.md lists them; `danki --help` prints them.
 */
enum class ExitCode(
    val code: Int,
    val meaning: String,
) {
    OK(0, "every new pod warmed and under --max-warm-p95 (report, bench: done; train: asked, or the cache is ready)"),
    NO_GO(1, "a pod failed its warm-up, was slower than --max-warm-p95, or was not decided (train: no cache)"),
    USAGE(2, "bad arguments"),
    NO_CLUSTER(3, "no cluster configured, or its API server is unreachable"),
    NO_CRD(4, "the WarmupRun CRD is not installed (danki is not installed; train: AotCache, aotCache.enabled off)"),
    FORBIDDEN(5, "RBAC denied a request"),
    NOT_FOUND(6, "the Deployment does not exist"),
    NOT_OPTED_IN(7, "the Deployment is not opted in to danki (train: no danki.dev/aot-cache: enabled)"),
    NO_CAPACITY(8, "a ResourceQuota has no room for the new pods"),
    TIMED_OUT(9, "--timeout passed before every new pod was decided (train: before the training ended)"),
    INTERRUPTED(130, "Ctrl-C: following stopped, the scale stays"),
    ;

    companion object {
        /** The table printed in `danki --help`. */
        fun help(): String = entries.joinToString("\n") { "${it.code.toString().padStart(CODE_WIDTH)}  ${it.meaning}" }

        private const val CODE_WIDTH = 3
    }
}
