package dev.danki.cluster.pod

import dev.danki.cluster.catalog.CatalogException
import dev.danki.cluster.catalog.ImageCatalog
import dev.danki.cluster.volume.VolumeUnavailableException
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.client.KubernetesClientException
import java.io.IOException
import java.time.Duration

/** A container's launch spec, or why it cannot start yet, as the kubelet's waiting reason says it. */
sealed interface LaunchPreparation {
    data class Ready(
        val spec: LaunchSpec,
    ) : LaunchPreparation

    data class Blocked(
        val reason: String,
        val message: String?,
    ) : LaunchPreparation {
        /**
         * When to try again. A missing image needs someone to edit the catalog: every 10 s. A missing
         * ConfigMap or Secret is usually being created with the pod (one `kubectl apply`), so soon.
         */
        val retryAfter: Duration get() = if (reason == CONFIG_ERROR) CONFIG_RETRY else IMAGE_RETRY
    }

    companion object {
        const val CONFIG_ERROR = "CreateContainerConfigError"
        private val IMAGE_RETRY: Duration = Duration.ofSeconds(10)
        private val CONFIG_RETRY: Duration = Duration.ofSeconds(2)

        /** Looks the image up in the catalog (read again every time), builds the environment and fills the volumes. */
        fun of(context: PodContext, container: Container): LaunchPreparation {
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
                val mounts = ContainerMounts.of(context, container)
                Ready(LaunchSpec.of(container, image, env, context.config.repo, mounts))
            } catch (e: ContainerConfigException) {
                Blocked(CONFIG_ERROR, e.message)
            } catch (e: VolumeUnavailableException) {
                Blocked(CONFIG_ERROR, e.message)
            } catch (e: KubernetesClientException) {
                Blocked(CONFIG_ERROR, "cannot read a ConfigMap or Secret from the API server: ${e.message}")
            } catch (e: IOException) {
                Blocked(CONFIG_ERROR, "cannot write the container's volume files: ${e.message}")
            }
        }
    }
}
