package dev.danki.cluster.pod

import java.nio.file.Path

/** A host file or folder bind-mounted at [target] inside one container's own mount namespace. */
data class BindMount(
    val source: Path,
    /** Absolute path as the container sees it. */
    val target: String,
    val readOnly: Boolean,
)
