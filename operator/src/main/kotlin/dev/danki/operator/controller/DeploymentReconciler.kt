package dev.danki.operator.controller

import dev.danki.operator.aot.AotAnnotations
import dev.danki.operator.aot.AotTrainer
import dev.danki.operator.gate.TemplateGate
import dev.danki.operator.kube.Caches
import dev.danki.operator.kube.EventRecorder
import dev.danki.operator.kube.Keys
import dev.danki.operator.metrics.WarmupMetrics
import dev.danki.operator.warmup.PlanParser
import dev.danki.operator.warmup.UnknownAnnotations
import dev.danki.operator.warmup.WarmupSwitch
import dev.danki.operator.webhook.UnlabeledPods
import io.fabric8.kubernetes.api.model.Namespace
import io.fabric8.kubernetes.api.model.apps.Deployment
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration
import io.javaoperatorsdk.operator.api.reconciler.Context
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext
import io.javaoperatorsdk.operator.api.reconciler.Reconciler
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl
import io.javaoperatorsdk.operator.processing.event.ResourceID
import io.javaoperatorsdk.operator.processing.event.source.EventSource
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource
import org.slf4j.LoggerFactory
import java.time.Duration
import kotlin.jvm.optionals.getOrNull

/**
 * Keeps a Deployment's pod template in line with its `danki.dev/warmup` annotation (gate and label
 * on, or off again; in webhook mode only off, for a template danki patched before a switch, and only
 * with `webhook.stripTemplateGates`), and
 * reports invalid annotations once as a Warning Event (and danki annotations it would ignore: unknown
 * keys, keys on the pod template). Its pods follow on their own: the pod reconciler watches their
 * Deployment as a secondary resource (released on opt-out, failed on bad config). In webhook mode it also
 * looks, on each of its events, for the Deployment's pods the webhook missed ([UnlabeledPods]).
 *
 * A JOSDK reconciler of Deployments; with [namespaceOptIn] (webhook mode) a Namespace's label change
 * reconciles every Deployment in it; with AOT caches, an event of a cache's claim (deleted, say)
 * reconciles the Deployment whose cache it stores.
 */
@ControllerConfiguration(
    name = DeploymentReconciler.NAME,
    // a Deployment's generation moves with its annotations too, but status-only events are not needed
    // either way; false keeps the behaviour of the earlier queue (every event reconciles)
    generationAwareEventProcessing = false,
    // a deleted Deployment's metrics series go with it
    triggerReconcilerOnAllEvents = true,
)
@Suppress("LongParameterList") // each is one concern of a Deployment's reconcile, wired once by Operator
class DeploymentReconciler(
    private val template: TemplateGate,
    private val events: EventRecorder,
    private val metrics: WarmupMetrics,
    private val parser: PlanParser,
    /** Template mode: opting in patches the template; webhook mode: never. */
    private val patchTemplate: Boolean,
    /**
     * Opting out takes danki's gate off the template: always in template mode; in webhook mode, for a gate
     * template mode left, only when the chart granted `patch` on Deployments for it. Otherwise a Warning.
     */
    private val stripTemplateGates: Boolean = true,
    private val namespaceOptIn: Boolean,
    /** Trains the AOT caches Deployments ask for; null when danki was installed without `aotCache.enabled`. */
    private val aot: AotTrainer? = null,
    /** Where the AOT caches' claims are watched from: a claim that goes reconciles its Deployment. */
    private val caches: Caches,
    /** Webhook mode: the pods of a Deployment that the webhook missed, which the pod cache does not hold. */
    private val unlabeledPods: UnlabeledPods? = null,
) : Reconciler<Deployment> {
    private val log = LoggerFactory.getLogger(DeploymentReconciler::class.java)
    private var namespaces: InformerEventSource<Namespace, Deployment>? = null

    override fun prepareEventSources(context: EventSourceContext<Deployment>): List<EventSource<*, Deployment>> =
        listOfNotNull(aot?.let { caches.claimSource(context) }, namespaceSource(context))

    private fun namespaceSource(context: EventSourceContext<Deployment>): EventSource<*, Deployment>? {
        if (!namespaceOptIn) return null
        val source =
            InformerEventSource(
                InformerEventSourceConfiguration
                    .from(Namespace::class.java, Deployment::class.java)
                    .withName("namespaces")
                    .withWatchAllNamespaces()
                    .withSecondaryToPrimaryMapper { n ->
                        context.primaryCache
                            .list(n.metadata.name)
                            .map(ResourceID::fromResource)
                            .toList()
                            .toSet()
                    }.build(),
                context,
            )
        namespaces = source
        return source
    }

    override fun reconcile(resource: Deployment, context: Context<Deployment>): UpdateControl<Deployment> {
        if (context.isPrimaryResourceDeleted) {
            metrics.deploymentGone(resource.metadata.namespace, resource.metadata.name, deleted = true)
            unlabeledPods?.forget(resource.metadata.namespace, resource.metadata.name)
            return UpdateControl.noUpdate()
        }
        val again = reconcile(resource)
        return UpdateControl.noUpdate<Deployment>().apply { again?.let { rescheduleAfter(it) } }
    }

    /** Returns when to look again, or null when only an event can. */
    private fun reconcile(deployment: Deployment): Duration? {
        val namespace = deployment.metadata.namespace
        val name = deployment.metadata.name
        val annotations = deployment.metadata.annotations.orEmpty()
        val switch = WarmupSwitch.of(deployment, namespaceLabels(namespace))
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
        if (switch != WarmupSwitch.ENABLED) metrics.deploymentGone(namespace, name, deleted = false)
        val aotAnnotations = AotAnnotations.of(annotations)
        if (aotAnnotations.problems.isNotEmpty()) {
            events.warningOnce(deployment, Keys.EventReasons.INVALID_CONFIG, aotAnnotations.problems.joinToString("; "))
        }
        if (aotAnnotations.enabled) {
            aot?.consider(deployment, switch) ?: events.warningOnce(
                deployment,
                Keys.EventReasons.AOT_DISABLED,
                "${Keys.Annotations.AOT_CACHE} is ignored: danki was installed without aotCache.enabled",
            )
        }
        val change = changeOf(deployment, switch)
        if (change != TemplateGate.Change.NONE) {
            template.apply(deployment, change)
            log
                .atInfo()
                .addKeyValue("namespace", namespace)
                .addKeyValue("deployment", name)
                .addKeyValue("change", change)
                .log("pod template updated")
        }
        // the pods danki gates are those of an opted-in Deployment, and those of a template with the gate
        val gatesPods = switch == WarmupSwitch.ENABLED || TemplateGate.hasGate(deployment)
        return if (gatesPods) unlabeledPods?.check(deployment) else null
    }

    /** What this mode may change of the template now; a gate it may not take off gets a Warning instead. */
    private fun changeOf(deployment: Deployment, switch: WarmupSwitch): TemplateGate.Change =
        when (val wanted = template.changeFor(deployment, switch)) {
            // in webhook mode the webhook gates and labels each pod instead
            TemplateGate.Change.ADD, TemplateGate.Change.LABEL -> {
                if (patchTemplate) wanted else TemplateGate.Change.NONE
            }

            TemplateGate.Change.REMOVE -> {
                if (stripTemplateGates) {
                    wanted
                } else {
                    events.warningOnce(deployment, Keys.EventReasons.TEMPLATE_GATE_LEFT, GATE_LEFT)
                    TemplateGate.Change.NONE
                }
            }

            TemplateGate.Change.NONE -> {
                wanted
            }
        }

    private fun namespaceLabels(namespace: String): Map<String, String> =
        namespaces
            ?.get(ResourceID(namespace))
            ?.getOrNull()
            ?.metadata
            ?.labels
            .orEmpty()

    companion object {
        const val NAME = "deployments"

        /** Its pods are still released on opt-out while danki runs; without danki they would stay unready. */
        private const val GATE_LEFT =
            "the pod template still has danki's readiness gate from template mode, and danki may not patch " +
                "Deployments in webhook mode: remove ${Keys.GATE_CONDITION} from spec.template.spec.readinessGates " +
                "(and the ${Keys.WARMUP_LABEL} template label), or install with webhook.stripTemplateGates=true"
    }
}
