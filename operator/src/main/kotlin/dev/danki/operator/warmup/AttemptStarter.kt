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

/** One k6 attempt under way. */
interface RunningAttempt {
    /** Waits for the attempt to end (at most until the request's deadline) and classifies it. */
    fun await(): K6Outcome

    /** Stops the attempt now; [await] then answers [K6Outcome.Cancelled]. */
    fun cancel()

    /** Removes what the attempt left behind (files, a runner pod); safe to repeat. */
    fun cleanUp()
}
