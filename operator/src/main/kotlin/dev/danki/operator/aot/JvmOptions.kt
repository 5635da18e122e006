package dev.danki.operator.aot

import io.fabric8.kubernetes.api.model.EnvVar
import io.fabric8.kubernetes.api.model.EnvVarBuilder

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

    sealed interface Result {
        /** The container's new environment, and the variable that now carries the options. */
        data class Appended(
            val env: List<EnvVar>,
            val variable: String,
        ) : Result

        /** The options cannot be added without hiding the user's: why, for an Event. */
        data class Refused(
            val reason: String,
        ) : Result
    }

    /** [env] (the container's `env`) with [options] appended; [hasEnvFrom]: the container also has `envFrom`. */
    fun append(env: List<EnvVar>, hasEnvFrom: Boolean, options: String): Result {
        val variable =
            listOf(dev.danki.operator.kube.Keys.Aot.JAVA_TOOL_OPTIONS, LAUNCHER_OPTIONS).firstOrNull { name ->
                env.any { it.name == name }
            }
        if (variable == null) {
            if (hasEnvFrom) {
                return Result.Refused(
                    "the container has envFrom, which may set JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS; set the one " +
                        "your JVM reads in its env instead, so that danki can add to it",
                )
            }
            return Result.Appended(env + EnvVar(LAUNCHER_OPTIONS, options, null), LAUNCHER_OPTIONS)
        }
        val at = env.indexOfLast { it.name == variable }
        val own = env[at]
        // an earlier entry of the same name is dead (the last one wins); it is left as the user wrote it
        val replaced =
            if (own.valueFrom == null) {
                listOf(EnvVar(variable, joined(own.value, options), null))
            } else {
                val kept = KEPT_PREFIX + variable
                listOf(
                    EnvVarBuilder(own).withName(kept).build(),
                    EnvVar(variable, "$($kept) $options", null),
                )
            }
        return Result.Appended(env.take(at) + replaced + env.drop(at + 1), variable)
    }

    private fun joined(value: String?, options: String) =
        if (value.isNullOrBlank()) options else "${value.trimEnd()} $options"
}
