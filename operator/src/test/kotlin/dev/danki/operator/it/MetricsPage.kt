package dev.danki.operator.it

import dev.danki.operator.Operator
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

/** The operator's `/metrics` page, as Prometheus scrapes it. */
fun Operator.metricsPage(): String =
    HttpClient
        .newHttpClient()
        .send(
            HttpRequest.newBuilder(URI("http://127.0.0.1:${http.port}/metrics")).build(),
            HttpResponse.BodyHandlers.ofString(),
        ).body()
