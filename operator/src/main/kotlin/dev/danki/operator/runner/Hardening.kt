package dev.danki.operator.runner

import io.fabric8.kubernetes.api.model.PodSecurityContext
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder
import io.fabric8.kubernetes.api.model.Quantity
import io.fabric8.kubernetes.api.model.ResourceRequirements
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder
import io.fabric8.kubernetes.api.model.SecurityContext
import io.fabric8.kubernetes.api.model.SecurityContextBuilder

/**
 * How every container of danki's own image runs in a tenant's namespace (runner pods, the AOT cache's
 * sealing pod and check container): the image's non-root user, a read-only root filesystem, no
 * privilege escalation, no capabilities, seccomp `RuntimeDefault`. One place, so they cannot drift.
 */
object Hardening {
    /** The conventional "nonroot" UID of danki's images (the Dockerfile's USER). */
    const val NON_ROOT = 65_532L

    /** A pod of danki's alone: its user and seccomp profile, for every container in it. */
    fun pod(): PodSecurityContext =
        PodSecurityContextBuilder()
            .withRunAsNonRoot(true)
            .withRunAsUser(NON_ROOT)
            .withRunAsGroup(NON_ROOT)
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .build()

    /**
     * A container of danki's image. [ownUser]: it sits in a pod that is not danki's (the tenant's pod,
     * for the cache check), so it sets the user and seccomp profile itself rather than take the pod's.
     */
    fun container(ownUser: Boolean = false): SecurityContext =
        SecurityContextBuilder()
            .withReadOnlyRootFilesystem(true)
            .withAllowPrivilegeEscalation(false)
            .withNewCapabilities()
            .withDrop("ALL")
            .endCapabilities()
            .apply {
                if (ownUser) {
                    withRunAsNonRoot(true)
                    withRunAsUser(NON_ROOT)
                    withRunAsGroup(NON_ROOT)
                    withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                }
            }.build()

    /** A shell script's few file operations: the AOT cache's sealing and checking. */
    val SMALL: ResourceRequirements =
        ResourceRequirementsBuilder()
            .addToRequests("cpu", Quantity("50m"))
            .addToRequests("memory", Quantity("32Mi"))
            .addToLimits("memory", Quantity("64Mi"))
            .build()
}
