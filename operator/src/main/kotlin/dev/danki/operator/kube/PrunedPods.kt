package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Pod

/**
 * The pod informer's store, holding each pod without its `managedFields`: danki never reads a pod's, and
 * they are a large part of every pod the API server sends (an entry per manager, kubelet and controllers
 * included, each with the field set it owns). What the operator keeps per pod is then what it decides on.
 * Operator uses it when danki watches all namespaces, which is one informer ([PrunedStore]).
 */
class PrunedPods :
    PrunedStore<Pod>({ pod ->
        pod.metadata?.managedFields = null
        pod
    })
