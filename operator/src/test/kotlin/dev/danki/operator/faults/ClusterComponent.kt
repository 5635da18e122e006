package dev.danki.operator.faults

import java.io.File
import java.util.concurrent.TimeUnit

/** `local-cluster/cluster-restart.sh` on the suite's instance: one control-plane component restarted, back healthy. */
object ClusterComponent {
    /** Restarts [component] with SIGTERM (or [signal]) and returns once it is healthy; fails otherwise. */
    fun restart(repo: File, instance: Int, component: String, signal: String = "TERM"): String {
        val process =
            ProcessBuilder(File(repo, "local-cluster/cluster-restart.sh").path, component)
                .redirectErrorStream(true)
                .apply {
                    environment()["CLUSTER_INSTANCE"] = instance.toString()
                    environment()["SIGNAL"] = signal
                    environment()["REPO"] = repo.path
                }.start()
        val out = process.inputStream.bufferedReader().readText()
        check(process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) { "cluster-restart $component still running: $out" }
        check(process.exitValue() == 0) { "cluster-restart $component failed: $out" }
        return out
            .trim()
            .lines()
            .lastOrNull()
            .orEmpty()
    }

    /** The script waits up to 45 s for the stop and 120 s for health. */
    private const val LIMIT_SECONDS = 200L
}
