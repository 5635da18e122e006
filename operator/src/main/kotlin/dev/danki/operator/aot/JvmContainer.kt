package dev.danki.operator.aot

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.warmup.ConfigProblem
import dev.danki.operator.warmup.PodPorts
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.PodSpec

/**
 * The container of a pod whose JVM the AOT cache is for, and the two digests that say whether a cache
 * fits it. One place decides both, for the training pod, the webhook and the retraining rule alike.
 */
data class JvmContainer(
    val name: String,
    val image: String,
    /** Image, command and arguments: what the JVM loads classes from. A pod that differs gets no cache. */
    val codeFingerprint: String,
    /** The JVM options from the environment: a change retrains, and the JVM judges the old cache itself. */
    val optionsFingerprint: String,
) {
    /** Both digests: what a cache is for. */
    val cacheKey: String get() = "$codeFingerprint/$optionsFingerprint"

    /** What a training is for: [cacheKey] and a digest of the whole pod template ([templateDigest]). */
    fun trainingKey(templateDigest: String) = "$cacheKey/$templateDigest"

    companion object {
        /** The variables a JVM reads options from: every launcher, the `java` launcher, and the legacy one. */
        val OPTION_VARIABLES = listOf(Keys.Aot.JAVA_TOOL_OPTIONS, "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")

        /**
         * The container serving the warm-up port ([portAnnotation], resolved as the warm-up resolves it),
         * else the first; null for a spec without containers.
         */
        fun of(spec: PodSpec?, portAnnotation: String?): JvmContainer? {
            val containers = spec?.containers.orEmpty()
            if (containers.isEmpty()) return null
            val port = PodPorts.resolve(portAnnotation, spec, mutableListOf<ConfigProblem>())
            val container =
                containers.firstOrNull { c -> c.ports.orEmpty().any { it.containerPort == port } } ?: containers.first()
            return of(container)
        }

        fun of(container: Container): JvmContainer =
            JvmContainer(
                name = container.name,
                image = container.image.orEmpty(),
                codeFingerprint =
                    Messages.digest(
                        listOf(
                            container.image.orEmpty(),
                            container.command.orEmpty().joinToString(SEPARATOR),
                            container.args.orEmpty().joinToString(SEPARATOR),
                        ).joinToString(FIELD_SEPARATOR),
                    ),
                optionsFingerprint = Messages.digest(optionsOf(container.env.orEmpty()).joinToString(FIELD_SEPARATOR)),
            )

        /** A digest of a pod template's spec: any change to it is a new training for a cache that failed. */
        fun templateDigest(spec: PodSpec?): String =
            Messages.digest(
                io.fabric8.kubernetes.client.utils.Serialization
                    .asJson(spec),
            )

        /** Each option variable as the container sets it: a value, or where the value comes from. */
        private fun optionsOf(env: List<EnvVar>): List<String> =
            OPTION_VARIABLES.map { name ->
                val v = env.lastOrNull { it.name == name }
                when {
                    v == null -> "$name unset"
                    v.valueFrom != null -> "$name from ${v.valueFrom}"
                    else -> "$name=${v.value.orEmpty()}"
                }
            }

        private const val SEPARATOR = "\u0000"
        private const val FIELD_SEPARATOR = "\u0001"
    }
}
