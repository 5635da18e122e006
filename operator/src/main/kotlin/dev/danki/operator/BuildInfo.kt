package dev.danki.operator

import java.util.Properties

/**
 * danki's version, one for the chart, the images and the CLI: charts/danki/Chart.yaml's `version`,
 * which reaches the jar through the parent POM's `danki.version` and the filtered
 * `build-info.properties` beside this class. Read once, on first use; the operator's start-up log,
 * `danki_build_info` on `/metrics` and `danki version` all print it.
 */
object BuildInfo {
    private const val RESOURCE = "build-info.properties"

    /** The release version, e.g. `0.1.0`. */
    val version: String by lazy { versionOf(load()) }

    /** The version in [properties], refused when absent or never filtered (a build that skipped Maven's resources). */
    internal fun versionOf(properties: Properties): String {
        val version = properties.getProperty("version")?.trim().orEmpty()
        check(version.isNotEmpty() && !version.contains("\${")) {
            "$RESOURCE has no version (found '$version'): build danki with Maven, which writes it"
        }
        return version
    }

    private fun load(): Properties {
        val stream =
            checkNotNull(BuildInfo::class.java.getResourceAsStream(RESOURCE)) {
                "$RESOURCE is missing beside ${BuildInfo::class.java.name}: build danki with Maven, which writes it"
            }
        return stream.use { Properties().apply { load(it) } }
    }
}
