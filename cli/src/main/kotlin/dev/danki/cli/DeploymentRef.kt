package dev.danki.cli

/** A Deployment named as kubectl names it: `deployment/web`, `deploy/web`, `deployments.apps/web` or `web`. */
data class DeploymentRef(
    val namespace: String,
    val name: String,
) {
    override fun toString() = "deployment/$name in namespace $namespace"

    companion object {
        private val KINDS = setOf("deployment", "deployments", "deploy", "deployment.apps", "deployments.apps")

        /** DNS-1123 subdomain, as the API server requires of a Deployment's name. */
        private val NAME = Regex("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")

        /** The reference, or null with [problem] saying why. */
        fun parse(text: String, namespace: String): Result<DeploymentRef> {
            val parts = text.trim().split('/')
            val name =
                when {
                    parts.size == 1 -> parts[0]
                    parts.size == 2 && parts[0].lowercase() in KINDS -> parts[1]
                    else -> return Result.failure(IllegalArgumentException(problem(text)))
                }
            if (!NAME.matches(name)) return Result.failure(IllegalArgumentException(problem(text)))
            return Result.success(DeploymentRef(namespace, name))
        }

        private fun problem(text: String): String {
            val echo = text.take(MAX_ECHO)
            return "'$echo' is not a Deployment: expected deployment/<name>, e.g. deployment/exam"
        }

        private const val MAX_ECHO = 80
    }
}
