package dev.danki.cluster.volume

/** The two kinds of API object whose keys a volume can show, named as the kubelet's messages name them. */
enum class ConfigKind(
    val label: String,
) {
    CONFIG_MAP("configmap"),
    SECRET("secret"),
}

/** Reads every key of a ConfigMap (data and binaryData) or Secret (decoded), or null when the object does not exist. */
fun interface ConfigObjectSource {
    fun data(kind: ConfigKind, namespace: String, name: String): Map<String, ByteArray>?
}
