package dev.danki.cli

import io.fabric8.kubernetes.client.KubernetesClientException
import java.io.IOException
import java.net.ConnectException
import java.net.UnknownHostException
import java.net.http.HttpTimeoutException

/**
 * Sorts every failure talking to the API server into one [CliFailure] with its next step; the one
 * place that decides. [what] names the request, e.g. `list WarmupRuns in namespace exams`.
 */
object KubeFailures {
    private const val FORBIDDEN = 403
    private const val NOT_FOUND = 404
    private const val UNAUTHORIZED = 401

    fun classify(e: Throwable, what: String): CliFailure {
        val api = apiError(e)
        val network = generateSequence(e) { it.cause }.firstOrNull { isNetwork(it) }
        return when {
            api?.code == FORBIDDEN -> {
                forbidden(api, what)
            }

            api?.code == UNAUTHORIZED -> {
                CliFailure(
                    ExitCode.FORBIDDEN,
                    "the API server did not accept your credentials ($what)",
                    "log in again or pick another context: kubectl config get-contexts",
                    e,
                )
            }

            api?.code == NOT_FOUND && isMissingType(api) -> {
                crdMissing(e)
            }

            network != null || api?.code == 0 || api?.code == null -> {
                CliFailure(
                    ExitCode.NO_CLUSTER,
                    "cannot reach a Kubernetes API server ($what: ${rootMessage(e)})",
                    "check KUBECONFIG and the current context (kubectl config current-context), " +
                        "then kubectl cluster-info",
                    e,
                )
            }

            else -> {
                CliFailure(
                    ExitCode.NO_CLUSTER,
                    "the API server answered ${api.code} to '$what': ${api.status?.message ?: api.message}",
                    "retry; if it persists, check the API server's health (kubectl get --raw /readyz)",
                    e,
                )
            }
        }
    }

    /** Whether RBAC denied the request (403), as opposed to rejecting the credentials (401). */
    fun isForbidden(e: Throwable): Boolean = apiError(e)?.code == FORBIDDEN

    private fun apiError(e: Throwable): KubernetesClientException? =
        generateSequence(e) { it.cause }
            .filterIsInstance<KubernetesClientException>()
            .firstOrNull()

    /** The WarmupRun API is missing: listing it answers 404 with no named object. */
    fun crdMissing(cause: Throwable?) =
        CliFailure(
            ExitCode.NO_CRD,
            "the WarmupRun CRD (warmupruns.danki.dev) is not installed: danki is not installed on this cluster",
            "install danki: helm install danki charts/danki -n danki-system --create-namespace (docs/install.md)",
            cause,
        )

    private fun forbidden(api: KubernetesClientException, what: String): CliFailure {
        val detail = api.status?.message ?: api.message ?: "forbidden"
        return CliFailure(
            ExitCode.FORBIDDEN,
            "RBAC denied '$what': $detail",
            "ask your cluster admin for that permission; see what you may do with " +
                "kubectl auth can-i --list -n <namespace> (docs/cli.md lists what each command needs)",
            api,
        )
    }

    /** A 404 on a list (no object name in the status) means the resource type itself is unknown. */
    private fun isMissingType(api: KubernetesClientException): Boolean =
        api.status
            ?.details
            ?.name
            .isNullOrEmpty()

    private fun isNetwork(t: Throwable) =
        t is ConnectException || t is UnknownHostException || t is HttpTimeoutException ||
            (t is IOException && t !is KubernetesClientException)

    private fun rootMessage(e: Throwable): String {
        val root = generateSequence(e) { it.cause }.last()
        return root.message ?: root.javaClass.simpleName
    }
}
