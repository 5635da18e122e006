package dev.danki.operator.warmup

import java.io.File

/** Finds programs as a shell would, so a missing one is reported by name instead of failing later. */
object Executables {
    /** [name] as the shell finds it: a path when it has a slash, else the first match on [path]. */
    fun find(name: String, path: String? = System.getenv("PATH")): File? {
        fun File.runnable() = isFile && canExecute()
        if (name.contains('/')) return File(name).takeIf { it.runnable() }
        return path
            .orEmpty()
            .split(File.pathSeparator)
            .filter { it.isNotEmpty() }
            .map { File(it, name) }
            .firstOrNull { it.runnable() }
    }
}
