package dev.danki.operator.testkit

import dev.danki.operator.kube.CpuBoostStatus
import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.WarmupRun
import dev.danki.operator.kube.WarmupRunSpec
import dev.danki.operator.kube.WarmupRunStatus
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder
import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.api.model.PodBuilder
import java.time.Instant

/**
 * `shop/web-1` (uid `uid-1`) as the reconciler sees it once its containers are ready: danki's gate in
 * its spec, an IP, a port named http, and ContainersReady True. [owner]: its ReplicaSet; [created]: its
 * creation time; [gate]: the reason of a True gate condition already written, or none.
 */
fun readyGatedPod(owner: String? = null, created: Instant? = null, gate: String? = null): Pod =
    PodBuilder()
        .withNewMetadata()
        .withNamespace("shop")
        .withName("web-1")
        .withUid("uid-1")
        .withCreationTimestamp(created?.toString())
        .apply { if (owner != null) ownedByReplicaSet(owner) }
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("app")
        .addNewPort()
        .withName("http")
        .withContainerPort(8080)
        .endPort()
        .endContainer()
        .addNewReadinessGate(Keys.GATE_CONDITION)
        .endSpec()
        .withNewStatus()
        .withPodIP("10.0.0.7")
        .addNewCondition()
        .withType("ContainersReady")
        .withStatus("True")
        .withLastTransitionTime(Instant.now().toString())
        .endCondition()
        .apply {
            if (gate != null) {
                addNewCondition()
                    .withType(Keys.GATE_CONDITION)
                    .withStatus("True")
                    .withReason(gate)
                    .endCondition()
            }
        }.endStatus()
        .build()

/** The WarmupRun of [readyGatedPod] (restart count 0) in [phase], with the [cpuBoost] record a leader wrote. */
fun readyGatedPodRun(phase: String, cpuBoost: CpuBoostStatus? = null): WarmupRun =
    WarmupRun().apply {
        metadata = ObjectMetaBuilder().withNamespace("shop").withName("web-1").build()
        spec =
            WarmupRunSpec().apply {
                podName = "web-1"
                podUid = "uid-1"
                restartCount = 0
            }
        status =
            WarmupRunStatus().apply {
                this.phase = phase
                this.cpuBoost = cpuBoost
            }
    }
