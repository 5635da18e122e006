package dev.danki.operator.kube

import io.fabric8.kubernetes.api.model.Pod
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore
import io.fabric8.kubernetes.client.informers.cache.ItemStore
import io.fabric8.kubernetes.client.informers.cache.Cache as InformerCache

/**
 * The pod informer's store, holding each pod without its `managedFields`: danki never reads a pod's, and
 * they are a large part of every pod the API server sends (an entry per manager, kubelet and controllers
 * included, each with the field set it owns). What the operator keeps per pod is then what it decides on.
 *
 * For one informer only: fabric8 reconciles a relist against the store's whole key set, so a store
 * shared by the informers of several namespaces would drop the others' pods. Operator uses it when
 * danki watches all namespaces, which is one informer.
 */
class PrunedPods : ItemStore<Pod> {
    private val store = BasicItemStore<Pod> { InformerCache.metaNamespaceKeyFunc(it) }

    override fun getKey(obj: Pod): String = store.getKey(obj)

    override fun put(key: String, obj: Pod): Pod? {
        // the informer's own copy, just decoded from the watch: nothing else holds it yet
        obj.metadata?.managedFields = null
        return store.put(key, obj)
    }

    override fun remove(key: String): Pod? = store.remove(key)

    override fun keySet() = store.keySet()

    override fun values() = store.values()

    override fun size(): Int = store.size()

    override fun get(key: String): Pod? = store.get(key)
}
