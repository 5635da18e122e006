package dev.danki.cluster.pod

import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.Pod

/** A container spec the agent cannot turn into a process; the kubelet's reason is CreateContainerConfigError. */
class ContainerConfigException(
    message: String,
) : IllegalArgumentException(message)

/** Reads a key of a ConfigMap or Secret (decoded), or null when the object or key does not exist. */
fun interface ConfigValueSource {
    fun value(kind: String, namespace: String, name: String, key: String): String?
}

/**
 * Builds a container's environment as the kubelet does: catalog defaults first, then the pod's
 * `env` in order, each value expanded with `$(NAME)` references to variables defined before it.
 */
class ContainerEnvironment(
    private val pod: Pod,
    private val podIp: String,
    private val hostIp: String,
    private val values: ConfigValueSource,
) {
    /** The environment for [container], on top of [base] (agent and catalog variables). */
    fun build(container: Container, base: Map<String, String>): Map<String, String> {
        if (!container.envFrom.isNullOrEmpty()) {
            throw ContainerConfigException("envFrom is not supported by the local node agent")
        }
        val env = LinkedHashMap(base)
        for (variable in container.env.orEmpty()) {
            val value = valueOf(variable) ?: continue
            env[variable.name] = VariableExpansion.expand(value, env)
        }
        return env
    }

    private fun valueOf(variable: EnvVar): String? {
        val from = variable.valueFrom ?: return variable.value ?: ""
        from.fieldRef?.let { return field(it.fieldPath) }
        from.configMapKeyRef?.let { ref ->
            return values.value("ConfigMap", namespace(), ref.name, ref.key)
                ?: missing(ref.optional, "configmap ${ref.name} key ${ref.key} not found (env ${variable.name})")
        }
        from.secretKeyRef?.let { ref ->
            return values.value("Secret", namespace(), ref.name, ref.key)
                ?: missing(ref.optional, "secret ${ref.name} key ${ref.key} not found (env ${variable.name})")
        }
        throw ContainerConfigException(
            "env ${variable.name}: only value, fieldRef, configMapKeyRef and secretKeyRef are supported",
        )
    }

    private fun missing(optional: Boolean?, message: String): String? =
        if (optional == true) null else throw ContainerConfigException(message)

    private fun namespace() = pod.metadata.namespace ?: "default"

    private fun field(path: String): String {
        val meta = pod.metadata
        Regex("""metadata\.(labels|annotations)\['(.+)']""").matchEntire(path)?.let { m ->
            val map = if (m.groupValues[1] == "labels") meta.labels else meta.annotations
            return map.orEmpty()[m.groupValues[2]] ?: ""
        }
        return when (path) {
            "metadata.name" -> meta.name
            "metadata.namespace" -> namespace()
            "metadata.uid" -> meta.uid
            "spec.nodeName" -> pod.spec.nodeName ?: ""
            "spec.serviceAccountName" -> pod.spec.serviceAccountName ?: ""
            "status.podIP", "status.podIPs" -> podIp
            "status.hostIP", "status.hostIPs" -> hostIp
            else -> throw ContainerConfigException("fieldRef $path is not supported by the local node agent")
        }
    }
}

/** `$(NAME)` expansion of env values, command and args, with `$$` as the escape, as in Kubernetes. */
object VariableExpansion {
    private val reference = Regex("""\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)""")

    fun expand(text: String, env: Map<String, String>): String =
        reference.replace(text) { m ->
            when {
                m.value == "$$" -> "$"
                else -> env[m.groupValues[1]] ?: m.value
            }
        }
}
