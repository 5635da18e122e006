package dev.danki.sample.routes

import dev.danki.sample.auth.LoginRequest
import dev.danki.sample.auth.LoginResponse
import dev.danki.sample.auth.Me
import dev.danki.sample.auth.Tokens
import dev.danki.sample.exam.ValidationErrors
import io.ktor.http.HttpHeaders
import io.ktor.http.HttpStatusCode
import io.ktor.server.request.receive
import io.ktor.server.response.header
import io.ktor.server.response.respond
import io.ktor.server.routing.Route
import io.ktor.server.routing.RoutingCall
import io.ktor.server.routing.get
import io.ktor.server.routing.post

/** A login and one route that answers only with its token: what a warm-up flow with a login needs. */
fun Route.authRoutes(tokens: Tokens) {
    post("/auth/login") {
        val login = call.receive<LoginRequest>()
        val token =
            tokens.login(login.username, login.password)
                ?: return@post call.unauthorized("""Bearer realm="danki-sample"""", "wrong username or password")
        call.respond(LoginResponse(token, Tokens.DEFAULT_LIFETIME.seconds))
    }
    get("/auth/me") {
        val bearer = call.bearerToken()
        if (bearer.isNullOrEmpty()) {
            return@get call.unauthorized("""Bearer realm="danki-sample"""", "no Authorization: Bearer <token> header")
        }
        val holder =
            tokens.verify(bearer)
                ?: return@get call.unauthorized("""Bearer error="invalid_token"""", "the token is invalid or expired")
        call.respond(Me(holder.username, holder.expiresAt.toString()))
    }
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
private fun RoutingCall.bearerToken(): String? {
    val header = request.headers[HttpHeaders.Authorization] ?: return null
    if (!header.startsWith(BEARER, ignoreCase = true)) return null
    return header.substring(BEARER.length).trim()
}

private const val BEARER = "Bearer "

private suspend fun RoutingCall.unauthorized(challenge: String, problem: String) {
    response.header(HttpHeaders.WWWAuthenticate, challenge)
    respond(HttpStatusCode.Unauthorized, ValidationErrors(listOf(problem)))
}
