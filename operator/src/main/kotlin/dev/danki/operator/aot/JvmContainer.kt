package dev.danki.operator.aot

import dev.danki.operator.kube.Keys
import dev.danki.operator.kube.Messages
import dev.danki.operator.warmup.ConfigProblem
import dev.danki.operator.warmup.PodPorts
import io.fabric8.kubernetes.api.model.Container
import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.EnvVarBuilder
import io.fabric8.kubernetes.api.model.PodSpec
import io.fabric8.kubernetes.client.utils.Serialization

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
        val OPTION_VARIABLES = listOf(Keys.Aot.JAVA_TOOL_OPTIONS, JvmOptions.LAUNCHER_OPTIONS, "_JAVA_OPTIONS")

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

        fun of(container: Container): JvmContainer {
            val code =
                listOf(
                    container.image.orEmpty(),
                    container.command.orEmpty().joinToString(SEPARATOR),
                    container.args.orEmpty().joinToString(SEPARATOR),
                )
            // each option variable as the container sets it: a value, or where the value comes from
            val options =
                OPTION_VARIABLES.map { name ->
                    val v = container.env.orEmpty().lastOrNull { it.name == name }
                    when {
                        v == null -> "$name unset"
                        v.valueFrom != null -> "$name from ${v.valueFrom}"
                        else -> "$name=${v.value.orEmpty()}"
                    }
                }
            return JvmContainer(
                name = container.name,
                image = container.image.orEmpty(),
                codeFingerprint = Messages.digest(code.joinToString(FIELD_SEPARATOR)),
                optionsFingerprint = Messages.digest(options.joinToString(FIELD_SEPARATOR)),
            )
        }

        /** A digest of a pod template's spec: any change to it is a new training for a cache that failed. */
        fun templateDigest(spec: PodSpec?): String = Messages.digest(Serialization.asJson(spec))

        private const val SEPARATOR = "\u0000"
        private const val FIELD_SEPARATOR = "\u0001"
    }
}

/**
 * Adds JVM options to a container's environment without losing the user's own: appended to the
 * container's `JAVA_TOOL_OPTIONS` when its spec sets one, else to `JDK_JAVA_OPTIONS`. A value that comes
 * from a ConfigMap or Secret is kept under another name and referenced (`$(NAME)`), which the kubelet
 * expands before the container starts.
 *
 * Why not always `JAVA_TOOL_OPTIONS`: an image often sets it in its own `ENV` (danki's sample service
 * does), and a pod's variable of that name replaces the image's; the options it held would be lost.
 * The `java` launcher reads `JDK_JAVA_OPTIONS` on top of `JAVA_TOOL_OPTIONS`, so the image's stay.
 * Pure: the caller writes the returned environment.
 */
object JvmOptions {
    /** Where the user's value from a reference is kept: the variable's name with this in front. */
    const val KEPT_PREFIX = "DANKI_USER_"
    const val LAUNCHER_OPTIONS = "JDK_JAVA_OPTIONS"

    /** The options cannot be added without hiding the user's: [reason] says why, for an Event. */
    class Refused(
        val reason: String,
    ) : IllegalArgumentException(reason)

    /**
     * [env] (the container's `env`) with [options] appended; [hasEnvFrom]: the container also has `envFrom`.
     * Throws [Refused] when they cannot be added without hiding the user's.
     */
    fun append(env: List<EnvVar>, hasEnvFrom: Boolean, options: String): List<EnvVar> {
        refusal(env, hasEnvFrom)?.let { throw Refused(it) }
        val variable = variableOf(env) ?: return env + EnvVar(LAUNCHER_OPTIONS, options, null)
        val at = env.indexOfLast { it.name == variable }
        val own = env[at]
        // an earlier entry of the same name is dead (the last one wins); it is left as the user wrote it
        val replaced =
            if (own.valueFrom == null) {
                val value = if (own.value.isNullOrBlank()) options else "${own.value.trimEnd()} $options"
                listOf(EnvVar(variable, value, null))
            } else {
                val kept = KEPT_PREFIX + variable
                listOf(EnvVarBuilder(own).withName(kept).build(), EnvVar(variable, "$($kept) $options", null))
            }
        return env.take(at) + replaced + env.drop(at + 1)
    }

    /** Why [append] would refuse to add options to [env], or null when it would add them. */
    fun refusal(env: List<EnvVar>, hasEnvFrom: Boolean): String? =
        if (hasEnvFrom && variableOf(env) == null) ENV_FROM_REFUSAL else null

    /** The variable [append] adds to: the container's own `JAVA_TOOL_OPTIONS`, else its `JDK_JAVA_OPTIONS`. */
    private fun variableOf(env: List<EnvVar>): String? =
        listOf(Keys.Aot.JAVA_TOOL_OPTIONS, LAUNCHER_OPTIONS).firstOrNull { n -> env.any { it.name == n } }

    private const val ENV_FROM_REFUSAL =
        "the container has envFrom, which may set JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS; set the one " +
            "your JVM reads in its env instead, so that danki can add to it"
}
