package dev.danki.operator.warmup

/**
 * Why the warm-up phase stopped, as written by `warmup.js`. `Converged`, `JitSettled`, `TargetReached`,
 * `MaxRequests` and `Timeout` end a run that goes on to its warm pass; `Aborted` (too many failed
 * requests) and `OutOfTime` (the run's own time budget cut it before the warm pass ended) end a failed one.
 */
enum class StopReason { Converged, TargetReached, MaxRequests, Timeout, Aborted, OutOfTime, JitSettled }
