package dev.danki.operator.kube

import com.fasterxml.jackson.annotation.JsonInclude
import com.fasterxml.jackson.annotation.JsonPropertyDescription
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn
import io.fabric8.kubernetes.api.model.Condition
import io.fabric8.kubernetes.api.model.Namespaced
import io.fabric8.kubernetes.client.CustomResource
import io.fabric8.kubernetes.model.annotation.Group
import io.fabric8.kubernetes.model.annotation.Kind
import io.fabric8.kubernetes.model.annotation.Plural
import io.fabric8.kubernetes.model.annotation.ShortNames
import io.fabric8.kubernetes.model.annotation.Singular
import io.fabric8.kubernetes.model.annotation.Version

/**
 * The JDK AOT cache of one Deployment (`danki.dev/aot-cache: enabled`): named after the Deployment and
 * owned by it. Only the operator writes it; its status is the one trusted record of the cache, because
 * the file itself sits on storage that pods of the namespace could mount. The webhook gives new pods
 * the cache whose [AotCacheStatus.sha256] this names, and each pod checks that digest before its JVM
 * maps the file.
 */
@Group(Keys.GROUP)
@Version(Keys.VERSION)
@Kind(Keys.AOT_CACHE_KIND)
@Plural("aotcaches")
@Singular("aotcache")
@ShortNames("aot")
@AdditionalPrinterColumn(name = "DEPLOYMENT", jsonPath = ".spec.deployment")
@AdditionalPrinterColumn(name = "PHASE", jsonPath = ".status.phase")
@AdditionalPrinterColumn(name = "SHA256", jsonPath = ".status.sha256", priority = 1)
@AdditionalPrinterColumn(name = "SIZE", jsonPath = ".status.sizeBytes", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "TRAINED", jsonPath = ".status.trainedAt", type = AdditionalPrinterColumn.Type.DATE)
@AdditionalPrinterColumn(name = "REASON", jsonPath = ".status.reason")
@AdditionalPrinterColumn(
    name = "AGE",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE,
)
class AotCache :
    CustomResource<AotCacheSpec, AotCacheStatus>(),
    Namespaced {
    companion object {
        const val PHASE_TRAINING = "Training"
        const val PHASE_READY = "Ready"
        const val PHASE_FAILED = "Failed"

        /** The JVM of the Deployment's image is older than JDK 25, which trains a cache in one step. */
        const val PHASE_UNSUPPORTED = "Unsupported"

        /** The one condition: the cache can be given to new pods. */
        const val CONDITION_READY = "Ready"
    }
}

/** Whose cache this is and where it is stored. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class AotCacheSpec {
    @JsonPropertyDescription("Deployment the cache is trained for and given to.")
    var deployment: String? = null

    @JsonPropertyDescription("PersistentVolumeClaim that stores the cache file.")
    var claimName: String? = null
}

/** The trained cache, and the last training. */
@JsonInclude(JsonInclude.Include.NON_NULL)
class AotCacheStatus {
    @JsonPropertyDescription("Training, Ready, Failed or Unsupported.")
    var phase: String? = null

    @JsonPropertyDescription("SHA-256 of the cache file, hex; each pod checks it before its JVM maps the file.")
    var sha256: String? = null

    @JsonPropertyDescription("Size of the cache file in bytes.")
    var sizeBytes: Long? = null

    @JsonPropertyDescription("Path of the cache file in the claim.")
    var file: String? = null

    @JsonPropertyDescription("Container of the pod template whose JVM the cache is for.")
    var container: String? = null

    @JsonPropertyDescription("Image the cache was trained on.")
    var image: String? = null

    @JsonPropertyDescription(
        "Digest of the container's image, command and arguments the cache (sha256) was trained on: what " +
            "the JVM loads classes from. A pod whose container differs is not given the cache.",
    )
    var codeFingerprint: String? = null

    @JsonPropertyDescription(
        "Digest of the container's JVM options (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS) at training; a change " +
            "retrains, and the JVM itself refuses a cache made with options it cannot use.",
    )
    var optionsFingerprint: String? = null

    @JsonPropertyDescription(
        "Code and options digests of the template the last training was for, successful or not: a " +
            "template that differs is trained again, one that failed is not retried until it changes.",
    )
    var lastTrainingFor: String? = null

    @JsonPropertyDescription("When the cache was written.")
    var trainedAt: String? = null

    @JsonPropertyDescription("Warm-up requests the training pod answered.")
    var trainingRequests: Long? = null

    @JsonPropertyDescription("Training pod of the training in progress, or of the last one.")
    var trainingPod: String? = null

    @JsonPropertyDescription("The Deployment's danki.dev/aot-train value the last training answered.")
    var trainRequest: String? = null

    @JsonPropertyDescription(
        "Why the cache was last trained: Created, TemplateChanged, Rejected, Requested, Resumed or ClaimRecreated.",
    )
    var trainCause: String? = null

    @JsonPropertyDescription("SHA-256 of a cache a pod's JVM refused; it is retrained once per template.")
    var rejectedSha256: String? = null

    @JsonPropertyDescription("Why a pod's JVM refused the cache named by rejectedSha256.")
    var rejection: String? = null

    @JsonPropertyDescription("Trainings in a row of the same template after a refusal; capped, then Failed.")
    var retrains: Int? = null

    var reason: String? = null
    var message: String? = null
    var conditions: List<Condition>? = null
}
