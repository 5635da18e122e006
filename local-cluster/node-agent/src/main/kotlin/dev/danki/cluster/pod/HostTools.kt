package dev.danki.cluster.pod

import java.io.File

/** Absolute paths of the host programs the agent runs containers through, found once on the agent's PATH. */
data class HostTools(
    val setsid: String,
    val ip: String,
    val sh: String,
) {
    companion object {
        fun fromPath(path: String = System.getenv("PATH").orEmpty()): HostTools {
            fun find(name: String): String =
                path
                    .split(File.pathSeparator)
                    .map { File(it, name) }
                    .firstOrNull { it.canExecute() }
                    ?.absolutePath
                    ?: error("$name not found on PATH ($path)")
            return HostTools(find("setsid"), find("ip"), find("sh"))
        }
    }
}
