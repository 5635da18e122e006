package dev.danki.operator.runner

import io.fabric8.kubernetes.client.KubernetesClient

/**
 * Deletes a runner pod (at once: its k6 has no state worth a grace period) and the NetworkPolicy that
 * fences it, both named [name]; a missing one is no error. Used before an attempt (a predecessor's
 * runner must not report for it) and after it.
 */
internal fun deleteRunner(client: KubernetesClient, namespace: String, name: String) {
    client
        .pods()
        .inNamespace(namespace)
        .withName(name)
        .withGracePeriod(0)
        .delete()
    client
        .network()
        .v1()
        .networkPolicies()
        .inNamespace(namespace)
        .withName(name)
        .delete()
}
