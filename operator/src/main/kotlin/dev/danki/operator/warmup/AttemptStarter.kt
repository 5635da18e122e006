package dev.danki.operator.warmup

import java.io.IOException

/**
 * Starts one k6 attempt somewhere: a child process of the operator for the built-in plan
 * ([K6Runner]), or a runner pod in the tenant's namespace for a custom script
 * ([dev.danki.operator.runner.RunnerPods]).
 */
interface AttemptStarter {
    /** Starts the attempt; an [IOException] means it could not start at all. */
    @Throws(IOException::class)
    fun start(request: K6Request): RunningAttempt
}
