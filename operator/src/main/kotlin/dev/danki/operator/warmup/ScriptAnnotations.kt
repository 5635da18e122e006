package dev.danki.operator.warmup

import dev.danki.operator.kube.Keys.Annotations

/** The custom-flow annotations: `danki.dev/script` and `danki.dev/script-secret`. */
object ScriptAnnotations {
    /** `<configmap>[/<key>]`: a name in the Deployment's own namespace; there is no way to name another. */
    fun parse(raw: String): ScriptRef? {
        val parts = raw.trim().split('/')
        if (parts.size > 2 || !OBJECT_NAME.matches(parts[0])) return null
        val key = parts.getOrNull(1) ?: return ScriptRef(parts[0])
        return ScriptRef(parts[0], key.takeIf(CONFIG_MAP_KEY::matches) ?: return null)
    }

    /** A script needs runner pods, and replaces the built-in plan's requests rather than mixing with them. */
    fun check(
        plan: WarmupPlan,
        annotations: Map<String, String>,
        runnerEnabled: Boolean,
        problems: MutableList<ConfigProblem>,
    ) {
        val raw = annotations[Annotations.SCRIPT]
        if (raw != null && plan.script != null && !runnerEnabled) {
            problems += ConfigProblem(Annotations.SCRIPT, raw, RUNNER_DISABLED)
        }
        if (plan.script == null && annotations.containsKey(Annotations.SCRIPT_SECRET) && raw == null) {
            val secret = annotations.getValue(Annotations.SCRIPT_SECRET)
            problems += ConfigProblem(Annotations.SCRIPT_SECRET, secret, SECRET_ALONE)
        }
        if (plan.script == null) return
        for (key in listOf(Annotations.PATHS, Annotations.HEADERS)) {
            annotations[key]?.let {
                problems +=
                    ConfigProblem(key, it, "not set together with ${Annotations.SCRIPT}: a flow sends its own requests")
            }
        }
    }

    /** A Secret's name, or null when it is not a valid object name. */
    fun secret(raw: String): String? = raw.trim().takeIf(OBJECT_NAME::matches)

    /** A Kubernetes object name (DNS-1123 subdomain), and a ConfigMap key. */
    private val OBJECT_NAME = Regex("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
    private val CONFIG_MAP_KEY = Regex("[-._a-zA-Z0-9]{1,253}")
    const val SCRIPT_EXPECTED =
        "the name of a ConfigMap in the Deployment's own namespace, optionally /<key> (default key flow.js), " +
            "e.g. 'exam-flow' or 'exam-flow/login.js'; a script is never taken from another namespace"
    const val SECRET_EXPECTED = "the name of a Secret in the Deployment's own namespace"
    private const val SECRET_ALONE = "used only with ${Annotations.SCRIPT}: the Secret is for a custom flow"
    private const val RUNNER_DISABLED =
        "custom scripts run in runner pods, which this operator does not create (chart value runner.enabled=false)"
}
