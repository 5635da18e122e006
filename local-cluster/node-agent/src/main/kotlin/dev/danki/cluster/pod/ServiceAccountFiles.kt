package dev.danki.cluster.pod

import dev.danki.cluster.config.AgentConfig
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder
import io.fabric8.kubernetes.client.KubernetesClient
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.time.Duration
import java.time.Instant

/**
 * The files a pod's service-account volume holds (`token`, `ca.crt`, `namespace`), with a token
 * from the TokenRequest API bound to the pod, as the kubelet's projected volume provides them.
 */
class ServiceAccountFiles(
    private val client: KubernetesClient,
    private val config: AgentConfig,
) {
    /** Whether any container of [pod] mounts the service-account token (the admission plugin added the mount). */
    fun wanted(pod: Pod): Boolean =
        pod.spec.containers.any { container ->
            container.volumeMounts.orEmpty().any { it.mountPath == ContainerCommand.SERVICE_ACCOUNT_PATH }
        }

    /** Writes (or refreshes) the files in [dir]; returns when the token should be refreshed. */
    fun write(pod: Pod, dir: Path): Instant {
        Files.createDirectories(dir)
        val serviceAccount = pod.spec.serviceAccountName ?: "default"
        val request =
            TokenRequestBuilder()
                .withNewSpec()
                .withExpirationSeconds(TOKEN_SECONDS)
                .withNewBoundObjectRef()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.metadata.name)
                .withUid(pod.metadata.uid)
                .endBoundObjectRef()
                .endSpec()
                .build()
        val response =
            client
                .serviceAccounts()
                .inNamespace(pod.metadata.namespace)
                .withName(serviceAccount)
                .tokenRequest(request)
        replace(dir, "token", response.status.token)
        replace(dir, "ca.crt", Files.readString(config.caFile))
        replace(dir, "namespace", pod.metadata.namespace)
        // The kubelet refreshes at 80 % of the lifetime; so do we.
        return Instant.now().plus(Duration.ofSeconds(TOKEN_SECONDS * REFRESH_PERCENT / PERCENT))
    }

    /** Atomic replace, so a client never reads half a token. */
    private fun replace(dir: Path, name: String, content: String) {
        val temp = dir.resolve(".$name.tmp")
        Files.writeString(temp, content)
        Files.move(temp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
    }

    private companion object {
        const val TOKEN_SECONDS = 3600L
        const val REFRESH_PERCENT = 80L
        const val PERCENT = 100L
    }
}
