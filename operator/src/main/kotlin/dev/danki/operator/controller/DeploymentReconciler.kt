package dev.danki.operator.controller

import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.UnknownAnnotations
import dev.danki.operator.warmup.WarmupSwitch
import org.slf4j.LoggerFactory

/**
 * Keeps a Deployment's pod template in line with its `danki.dev/warmup` annotation (gate and label
 * on, or off again; in webhook mode only off, for a template danki patched before a switch), reports
 * invalid annotations once as a Warning Event (and danki annotations it
 * would ignore: unknown keys, keys on the pod template), and hands its pods to the
 * pod reconciler so they follow (released on opt-out, failed on bad config).
 */
class DeploymentReconciler(
    private val caches: Caches,
    private val template: TemplateGate,
    private val events: EventRecorder,
    private val metrics: WarmupMetrics,
    private val parser: PlanParser,
    /** Template mode: opting in patches the template; webhook mode: never (an old gate still goes on opt-out). */
    private val patchTemplate: Boolean,
    private val enqueuePod: (namespace: String, name: String) -> Unit,
) {
    private val log = LoggerFactory.getLogger(DeploymentReconciler::class.java)

    fun reconcile(namespace: String, name: String) {
        val deployment = caches.deployments.get(namespace, name)
        if (deployment == null) {
            metrics.deploymentGone(namespace, name)
            return
        }
        val annotations = deployment.metadata.annotations.orEmpty()
        val switch = WarmupSwitch.of(deployment, caches.namespaceLabels(namespace))
        if (switch == WarmupSwitch.ENABLED || switch == WarmupSwitch.INVALID) {
            val problems = parser.parse(annotations, deployment.spec?.template?.spec).problems
            if (problems.isNotEmpty()) {
                events.warningOnce(deployment, Keys.EventReasons.INVALID_CONFIG, problems.joinToString("; "))
            }
        }
        UnknownAnnotations
            .of(
                annotations,
                deployment.spec
                    ?.template
                    ?.metadata
                    ?.annotations,
            ).forEach {
                events.warningOnce(deployment, Keys.EventReasons.UNKNOWN_ANNOTATION, it)
            }
        if (switch != WarmupSwitch.ENABLED) metrics.deploymentGone(namespace, name)
        val change =
            template.changeFor(deployment, switch).takeUnless { it == TemplateGate.Change.ADD && !patchTemplate }
                ?: TemplateGate.Change.NONE
        if (change != TemplateGate.Change.NONE) {
            template.apply(deployment, change)
            log
                .atInfo()
                .addKeyValue("namespace", namespace)
                .addKeyValue("deployment", name)
                .addKeyValue("change", change)
                .log("pod template updated")
        }
        caches.podsOf(namespace, name).forEach { enqueuePod(namespace, it.metadata.name) }
    }
}
