package dev.danki.sample.auth

import kotlinx.serialization.Serializable

/** What `POST /auth/login` takes. */
@Serializable
data class LoginRequest(
    val username: String,
    val password: String,
)

/** What `POST /auth/login` answers: send `Authorization: Bearer <token>` with later calls. */
@Serializable
data class LoginResponse(
    val token: String,
    val expiresInSeconds: Long,
)

/** What `GET /auth/me` answers for a valid token. */
@Serializable
data class Me(
    val username: String,
    val expiresAt: String,
)
