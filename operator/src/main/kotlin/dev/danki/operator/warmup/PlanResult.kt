package dev.danki.operator.warmup

/** A parsed plan, or the problems that kept it from parsing; [failurePolicy] is always known. */
data class PlanResult(
    val plan: WarmupPlan?,
    val problems: List<ConfigProblem>,
    val failurePolicy: FailurePolicy,
)
