package dev.danki.sample.warmup

import io.ktor.server.application.ApplicationCall

/** The header danki's warm-up traffic carries; its writes are rolled back and its metrics kept apart. */
const val WARMUP_HEADER = "X-Danki-Warmup"

/** True when the request is warm-up traffic (`X-Danki-Warmup: 1`). */
val ApplicationCall.isWarmup: Boolean
    get() = request.headers[WARMUP_HEADER]?.trim() == "1"
