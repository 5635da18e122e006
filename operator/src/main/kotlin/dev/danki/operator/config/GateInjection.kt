package dev.danki.operator.config

/** How danki's readiness gate reaches the pods of an opted-in Deployment. */
enum class GateInjection {
    /** A mutating admission webhook adds it to each new pod: nothing rolls, the Deployment is never patched. */
    WEBHOOK,

    /** danki patches the Deployment's pod template: opting in (and out) rolls the Deployment once. */
    TEMPLATE,
}
