package dev.danki.sample.routes

import kotlinx.serialization.Serializable

/** What a sleep route did and on which threads. */
@Serializable
data class SleepResult(
    val route: String,
    val seconds: Double,
    /** The request thread the handler started on. */
    val requestThread: String,
    /** The thread that ran the query (the request thread itself for /sleep-sync). */
    val queryThread: String,
    val elapsedMs: Long,
)
