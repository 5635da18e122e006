package dev.danki.operator.testkit

import dev.danki.operator.kube.Keys
import io.fabric8.kubernetes.api.model.ObjectMetaFluent

/**
 * A pod's metadata as the ReplicaSet [replicaSet] (`<deployment>-<template hash>`) writes it: the
 * template-hash label and the controller reference, which is how danki finds the pod's Deployment.
 */
fun <A : ObjectMetaFluent<A>> A.ownedByReplicaSet(replicaSet: String): A =
    addToLabels(Keys.POD_TEMPLATE_HASH, replicaSet.substringAfterLast('-'))
        .addNewOwnerReference()
        .withKind("ReplicaSet")
        .withName(replicaSet)
        .withController(true)
        .endOwnerReference()
