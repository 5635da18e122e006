package dev.danki.operator.kube

/**
 * Every Kubernetes key danki reads or writes: annotations, labels, the readiness-gate condition,
 * condition reasons, event reasons and the server-side-apply field manager. Defined once, here.
 */
object Keys {
    /** Prefix shared by every annotation, label and condition type. */
    const val PREFIX = "danki.dev/"

    /** Server-side-apply field manager for every write danki makes. */
    const val FIELD_MANAGER = "danki"

    /** Field manager of the `danki` CLI's writes (an HPA's minReplicas), told apart from the operator's. */
    const val CLI_FIELD_MANAGER = "danki-cli"

    /** API group, version and kinds of danki's custom resources (annotations need constants). */
    const val GROUP = "danki.dev"
    const val VERSION = "v1alpha1"
    const val API_VERSION = "$GROUP/$VERSION"
    const val RUN_KIND = "WarmupRun"
    const val HISTORY_KIND = "WarmupHistory"
    const val AOT_CACHE_KIND = "AotCache"

    /** Readiness-gate condition type that a warm-up sets True. */
    const val GATE_CONDITION = "${PREFIX}warmed"

    /** The recommended label on what danki creates (value [FIELD_MANAGER]): runner, training pods, claims. */
    const val MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"

    /** Selects what danki created, by [MANAGED_BY_LABEL]. */
    const val MANAGED_BY_DANKI = "$MANAGED_BY_LABEL=$FIELD_MANAGER"

    /**
     * Label on every pod that carries the gate (the webhook adds it with the gate; template mode puts it on
     * the template) and on an opted-in Deployment's template; same key as the opt-in annotation. The pod
     * cache holds only pods with it ([POD_CACHE_SELECTOR]), so its size follows danki's pods, not the cluster's.
     */
    const val WARMUP_LABEL = "${PREFIX}warmup"
    const val WARMUP_LABEL_VALUE = "enabled"

    /** The pod informer's label selector: pods labelled [WARMUP_LABEL], whatever its value. */
    const val POD_CACHE_SELECTOR = WARMUP_LABEL

    /**
     * Label on a Namespace that opts in every Deployment in it (webhook mode), value [WARMUP_LABEL_VALUE];
     * a Deployment's own `danki.dev/warmup` annotation still wins.
     */
    const val NAMESPACE_OPT_IN_LABEL = "${PREFIX}warmup"

    /** Deployment annotations (user settings). */
    object Annotations {
        const val WARMUP = "${PREFIX}warmup"
        const val PORT = "${PREFIX}port"
        const val PATHS = "${PREFIX}paths"
        const val RATE = "${PREFIX}rate"
        const val REQUESTS = "${PREFIX}requests"
        const val WARMUP_RATE = "${PREFIX}warmup-rate"
        const val WARMUP_CONCURRENCY = "${PREFIX}warmup-concurrency"
        const val MIN_WARMUP_REQUESTS = "${PREFIX}min-warmup-requests"
        const val MAX_WARMUP_REQUESTS = "${PREFIX}max-warmup-requests"
        const val JIT_METRICS = "${PREFIX}jit-metrics"
        const val ACCEPT_REDIRECTS = "${PREFIX}accept-redirects"
        const val SCRIPT = "${PREFIX}script"
        const val SCRIPT_SECRET = "${PREFIX}script-secret"
        const val TARGET_P95 = "${PREFIX}target-p95"
        const val TIMEOUT = "${PREFIX}timeout"
        const val FAILURE_POLICY = "${PREFIX}failure-policy"
        const val HEADERS = "${PREFIX}headers"

        /** Where the cold figures come from: `warmup` (the warm-up's first requests) or `open` (a pass of its own). */
        const val COLD_PASS = "${PREFIX}cold-pass"

        /** Low-rate requests after the warm-up, before the warm pass, e.g. `1s`; `0s` for none. */
        const val DRAIN = "${PREFIX}drain"

        /**
         * CPU limit of the warmed container while its pod is gated, e.g. `2` or `1500m`; [WARMUP_CPU_OFF]
         * for none where the chart gives one by default.
         */
        const val WARMUP_CPU = "${PREFIX}warmup-cpu"

        /** The value of [WARMUP_CPU] that asks for no boost. */
        const val WARMUP_CPU_OFF = "off"

        /** What to do about a pod admitted without the gate: `report` or `replace` (warmup.UngatedPods). */
        const val UNGATED_PODS = "${PREFIX}ungated-pods"

        /** `enabled`: danki trains a JDK AOT cache on the Deployment's warm-up plan and gives it to new pods. */
        const val AOT_CACHE = "${PREFIX}aot-cache"

        /** A new value asks for a new training (`danki train deployment/<name>` writes the time). */
        const val AOT_TRAIN = "${PREFIX}aot-train"

        /**
         * Pod annotation: a new value asks for a new warm-up of a pod whose warm-up failed
         * (`kubectl annotate pod <pod> danki.dev/rewarm=$(date +%s) --overwrite`).
         */
        const val REWARM = "${PREFIX}rewarm"

        /** Every annotation danki reads on a Deployment; any other `danki.dev/` key there is named as unknown. */
        val ON_DEPLOYMENT: Set<String> =
            setOf(
                WARMUP,
                PORT,
                PATHS,
                RATE,
                REQUESTS,
                WARMUP_RATE,
                WARMUP_CONCURRENCY,
                MIN_WARMUP_REQUESTS,
                MAX_WARMUP_REQUESTS,
                JIT_METRICS,
                ACCEPT_REDIRECTS,
                SCRIPT,
                SCRIPT_SECRET,
                TARGET_P95,
                TIMEOUT,
                FAILURE_POLICY,
                HEADERS,
                COLD_PASS,
                DRAIN,
                WARMUP_CPU,
                UNGATED_PODS,
                AOT_CACHE,
                AOT_TRAIN,
            )

        /** The value of [WARMUP] that opts a Deployment in. */
        const val ENABLED = "enabled"

        /** The value of [WARMUP] that opts a Deployment out explicitly, even when its template has the gate. */
        const val DISABLED = "disabled"
    }

    /** Reasons on the pod's gate condition. */
    object GateReasons {
        const val WARMED_UP = "WarmedUp"
        const val WARMUP_DISABLED = "WarmupDisabled"
        const val WARMUP_FAILED_OPEN = "WarmupFailedOpen"
        const val WARMUP_FAILED = "WarmupFailed"
        const val CONTAINER_RESTARTED = "ContainerRestarted"
        const val REWARMING = "Rewarming"
    }

    /** Event reasons (pod and Deployment). */
    object EventReasons {
        const val WARMUP_STARTED = "WarmupStarted"
        const val WARMED_UP = "WarmedUp"
        const val WARMUP_FAILED = "WarmupFailed"
        const val INVALID_CONFIG = "InvalidWarmupConfig"
        const val WARMUP_RETRIED = "WarmupRetried"
        const val UNKNOWN_ANNOTATION = "UnknownWarmupAnnotation"

        /**
         * On the Deployment: a pod of an opted-in Deployment was admitted without the gate (the webhook was
         * unreachable or could not read the pod's Deployment in time).
         */
        const val POD_NOT_GATED = "PodNotGated"

        /** On the Deployment: such a pod was evicted, so that its ReplicaSet recreates it with the gate. */
        const val UNGATED_POD_REPLACED = "UngatedPodReplaced"

        /**
         * On the Deployment: a pod carries the gate without the [WARMUP_LABEL] label (its template's gate,
         * admitted while the webhook was unreachable or before danki labelled such pods): the pod cache does
         * not hold it, so no warm-up would ever decide it.
         */
        const val POD_NOT_LABELED = "PodNotLabeled"

        /** The AOT cache: its training and what each pod made of it. */
        const val AOT_TRAINING_STARTED = "AotCacheTraining"
        const val AOT_TRAINED = "AotCacheTrained"
        const val AOT_TRAINING_FAILED = "AotCacheTrainingFailed"
        const val AOT_UNSUPPORTED = "AotCacheUnsupported"
        const val AOT_USED = "AotCacheUsed"
        const val AOT_ABSENT = "AotCacheAbsent"
        const val AOT_REJECTED = "AotCacheRejected"

        /** On the Deployment: it asks for a cache, but danki was installed without `aotCache.enabled`. */
        const val AOT_DISABLED = "AotCacheDisabled"

        /**
         * On the Deployment, webhook mode: it opted out, but its template keeps the gate template mode wrote,
         * which danki may not take off without `webhook.stripTemplateGates`.
         */
        const val TEMPLATE_GATE_LEFT = "TemplateGateLeft"

        /** On the pod: its CPU boost (`danki.dev/warmup-cpu`) was refused, or not restored; the warm-up went on. */
        const val CPU_BOOST_REFUSED = "CpuBoostRefused"
        const val CPU_BOOST_NOT_RESTORED = "CpuBoostNotRestored"
    }

    /** The webhook's own Secret: its CA and serving certificate, PEM, as `kubernetes.io/tls` plus the CA. */
    object WebhookSecret {
        const val TLS_CERT = "tls.crt"
        const val TLS_KEY = "tls.key"
        const val CA_CERT = "ca.crt"
        const val CA_KEY = "ca.key"

        /** The CA before the last CA rotation: kept in the caBundle until every replica serves the new one. */
        const val PREVIOUS_CA_CERT = "ca-previous.crt"
    }

    /** WarmupRun condition types and reasons. */
    object RunConditions {
        const val COMPLETED = "Completed"
        const val REASON_SUCCEEDED = "Succeeded"
        const val REASON_INVALID_CONFIG = "InvalidWarmupConfig"
        const val REASON_TIMEOUT = "Timeout"
        const val REASON_K6_FAILED = "K6Failed"
        const val REASON_TOO_MANY_ERRORS = "TooManyErrors"
        const val REASON_TARGET_REFUSED = "TargetRefused"

        /**
         * The warm-up completed, but the pod's CPU boost could not be put back: it would join its Service
         * above its declared CPU, so its gate follows the failure policy, and the run and a metric say why.
         */
        const val REASON_CPU_BOOST_NOT_RESTORED = "CpuBoostNotRestored"

        /** The warm-up waited for a slot until its deadline: danki's side, so a held pod is tried again. */
        const val REASON_QUEUE_TIMEOUT = "QueueTimeout"

        /** k6 (or its runner pod) could not be started at all: danki's side, so a held pod is tried again. */
        const val REASON_K6_NOT_STARTED = "K6NotStarted"

        /** A cancelled run: the pod's containers restarted (a newer run took over) or warm-up was disabled. */
        const val REASON_CONTAINER_RESTARTED = "ContainerRestarted"
        const val REASON_WARMUP_DISABLED = "WarmupDisabled"
    }

    /** Labels and annotations of the runner pods that run custom flows, and of their NetworkPolicies. */
    object RunnerLabels {
        /** The runner's name; the NetworkPolicy selects its pod by it. */
        const val RUNNER = "${PREFIX}runner"

        /** The pod a runner warms. */
        const val FOR_POD = "${PREFIX}for-pod"
    }

    /**
     * Annotation on a pod whose CPU the webhook raised at admission (`danki.dev/warmup-cpu`): the warmed
     * container's declared CPU, which the operator restores before the warm pass. On the pod itself, so a
     * new leader restores it from the pod alone. Its value is JSON, written by the webhook over any the
     * pod came with ([dev.danki.operator.boost.DeclaredCpu]).
     */
    const val DECLARED_CPU_ANNOTATION = "${PREFIX}declared-cpu"

    /** The AOT cache: its training pod, its store, and what the webhook adds to a Deployment's new pods. */
    object Aot {
        /** Label on a training pod and its sealing pod (value `true`); their owner is the AotCache. */
        const val TRAINING_LABEL = "${PREFIX}aot-training"

        /** Annotation on a pod given a cache at admission: the cache's SHA-256 (too long for a label). */
        const val CACHE_ANNOTATION = "${PREFIX}aot-cache"

        /** The injected init container that checks the cache's SHA-256 and copies it beside the JVM. */
        const val VERIFY_CONTAINER = "danki-aot-verify"

        /** Volumes: the Deployment's store (the PVC, read-only but in the training pod) and the pod's copy. */
        const val STORE_VOLUME = "danki-aot-store"
        const val COPY_VOLUME = "danki-aot"
        const val STORE_DIR = "/var/run/danki/aot-store"
        const val COPY_DIR = "/var/run/danki/aot"

        /** The cache file in the pod's copy, as `-XX:AOTCache` names it. */
        const val COPY_FILE = "$COPY_DIR/app.aot"

        /** The environment variable the JVM reads options from, wherever it is started. */
        const val JAVA_TOOL_OPTIONS = "JAVA_TOOL_OPTIONS"

        /** What the verify container reports in its termination message. */
        const val VERIFIED = "verified"
        const val ABSENT = "absent"

        /** Values of a WarmupRun's `status.aotCache`, before the reason in parentheses. */
        const val USED = "used"
        const val REJECTED = "rejected"
    }

    /** Header every warm-up request carries, so services can tell warm-up traffic apart. */
    const val WARMUP_HEADER = "X-Danki-Warmup"

    /** Kubernetes' own keys that danki reads. */
    const val POD_TEMPLATE_HASH = "pod-template-hash"
    const val CONTAINERS_READY = "ContainersReady"
}
