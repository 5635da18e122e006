package dev.danki.cluster.pod

import dev.danki.cluster.catalog.CatalogException
import dev.danki.cluster.catalog.ImageCatalog
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.client.KubernetesClientException

/** A container's launch spec, or why it cannot start yet, as the kubelet's waiting reason says it. */
sealed interface LaunchPreparation {
    data class Ready(
        val spec: LaunchSpec,
    ) : LaunchPreparation

    data class Blocked(
        val reason: String,
        val message: String?,
    ) : LaunchPreparation

    companion object {
        /** Looks the image up in the catalog (read again every time) and builds the environment. */
        fun of(
            context: PodContext,
            container: Container,
        ): LaunchPreparation {
            val catalog =
                try {
                    ImageCatalog.load(context.config.catalog, context.config.repo)
                } catch (e: CatalogException) {
                    return Blocked("ErrImagePull", e.message)
                }
            val known = catalog.names.sorted().joinToString(", ")
            val image =
                catalog.find(container.image)
                    ?: return Blocked(
                        "ErrImagePull",
                        "image \"${container.image}\" is not in the image catalog ${catalog.source} " +
                            "(the local node agent pulls no images; known: $known)",
                    )
            return try {
                val env =
                    ContainerEnvironment(context.pod, context.ip, context.config.bridgeIp, context.configValues)
                        .build(container, context.baseEnv() + image.env)
                Ready(LaunchSpec.of(container, image, env, context.config.repo))
            } catch (e: ContainerConfigException) {
                Blocked("CreateContainerConfigError", e.message)
            } catch (e: KubernetesClientException) {
                Blocked("CreateContainerConfigError", "cannot read env values from the API server: ${e.message}")
            }
        }
    }
}
