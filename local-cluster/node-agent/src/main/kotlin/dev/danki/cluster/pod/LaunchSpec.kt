package dev.danki.cluster.pod

import dev.danki.cluster.catalog.CatalogImage
import io.fabric8.kubernetes.api.model.Container
import java.nio.file.Path

/** The process to start for one container: argv, environment, working directory and mounts on the host. */
data class LaunchSpec(
    val argv: List<String>,
    val env: Map<String, String>,
    val workingDir: Path,
    /** Bind mounts made in the container's own mount namespace before its command runs. */
    val mounts: List<BindMount> = emptyList(),
) {
    companion object {
        /**
         * Combines [container] and its catalog [image] with Kubernetes' rules: the pod's `command`
         * replaces the image's command and drops its default args; the pod's `args` replace the
         * image's default args. `$(NAME)` references in both are expanded from [env].
         */
        fun of(
            container: Container,
            image: CatalogImage,
            env: Map<String, String>,
            repo: Path,
            mounts: List<BindMount> = emptyList(),
        ): LaunchSpec {
            val command = container.command.orEmpty()
            val args = container.args.orEmpty()
            val argv =
                when {
                    command.isNotEmpty() -> command + args
                    args.isNotEmpty() -> image.command + args
                    else -> image.command + image.args
                }.map { VariableExpansion.expand(it, env) }
            val dir = container.workingDir?.takeIf { it.isNotBlank() } ?: image.workingDir ?: "."
            return LaunchSpec(argv, env, repo.resolve(dir).normalize(), mounts)
        }
    }
}
