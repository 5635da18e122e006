package dev.danki.cluster.catalog

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory
import java.nio.file.Files
import java.nio.file.Path

/**
 * What an image name runs on this machine: the local stand-in for an image's ENTRYPOINT (`command`),
 * CMD (`args`), ENV and WORKDIR. Paths are relative to the repository root; `${REPO}` in any
 * string is replaced by its absolute path.
 */
data class CatalogImage(
    val command: List<String>,
    val args: List<String> = emptyList(),
    val env: Map<String, String> = emptyMap(),
    val workingDir: String? = null,
)

/** Raised when the catalog file cannot be read or is malformed; the message names the file. */
class CatalogException(
    message: String,
    cause: Throwable? = null,
) : IllegalStateException(message, cause)

/** The image catalog file (`local-cluster/images.yaml`): a map from image name to [CatalogImage]. */
class ImageCatalog(
    val source: String,
    private val images: Map<String, CatalogImage>,
) {
    /** The entry for [image], or null when the catalog has none. */
    fun find(image: String): CatalogImage? = images[image]

    /** Every image name the catalog knows, for error messages. */
    val names: Set<String> get() = images.keys

    companion object {
        private val yaml = ObjectMapper(YAMLFactory())

        /** Reads [file]; `${REPO}` becomes [repo]. Throws [CatalogException] naming every problem. */
        fun load(file: Path, repo: Path): ImageCatalog {
            val text =
                try {
                    Files.readString(file)
                } catch (e: java.io.IOException) {
                    throw CatalogException("cannot read image catalog $file: ${e.message}", e)
                }
            return parse(text, file.toString(), repo.toString())
        }

        /** Parses catalog YAML [text]; [source] names it in errors. */
        @Suppress("ThrowsCount") // one throw per way the file can be wrong, each with its own message
        fun parse(text: String, source: String, repo: String): ImageCatalog {
            val root =
                try {
                    yaml.readTree(text)
                } catch (e: com.fasterxml.jackson.core.JacksonException) {
                    throw CatalogException("image catalog $source is not valid YAML: ${e.originalMessage}", e)
                }
            val imagesNode = root?.get("images")
            if (imagesNode == null || !imagesNode.isObject) {
                throw CatalogException("image catalog $source has no 'images' map")
            }
            val problems = mutableListOf<String>()
            val images = mutableMapOf<String, CatalogImage>()
            imagesNode.fields().forEach { (name, node) ->
                parseImage(node, repo, problems.withPrefix("$name: "))?.let { images[name] = it }
            }
            if (problems.isNotEmpty()) throw CatalogException("image catalog $source: ${problems.joinToString("; ")}")
            return ImageCatalog(source, images)
        }

        private fun parseImage(node: JsonNode, repo: String, problems: Problems): CatalogImage? {
            if (!node.isObject) return null.also { problems.add("must be a map with 'command'") }
            node
                .fieldNames()
                .asSequence()
                .filter { it !in KEYS }
                .forEach { problems.add("unknown key '$it'") }
            val command = stringList(node.get("command"), "command", problems)
            if (command.isEmpty()) problems.add("'command' must be a non-empty list of strings")
            val args = stringList(node.get("args"), "args", problems)
            val env = mutableMapOf<String, String>()
            node.get("env")?.let { envNode ->
                if (!envNode.isObject) problems.add("'env' must be a map of strings")
                envNode.fields().forEach { (k, v) ->
                    if (v.isValueNode) env[k] = v.asText().withRepo(repo) else problems.add("env $k must be a string")
                }
            }
            val workingDir = node.get("workingDir")?.asText()?.withRepo(repo)
            return CatalogImage(command.map { it.withRepo(repo) }, args.map { it.withRepo(repo) }, env, workingDir)
        }

        private fun stringList(node: JsonNode?, key: String, problems: Problems): List<String> {
            if (node == null || node.isNull) return emptyList()
            if (!node.isArray ||
                node.any { !it.isValueNode }
            ) {
                return emptyList<String>().also { problems.add("'$key' must be a list of strings") }
            }
            return node.map { it.asText() }
        }

        private fun String.withRepo(repo: String) = replace("\${REPO}", repo)

        private val KEYS = setOf("command", "args", "env", "workingDir")
    }
}

/** Collects problems under a common prefix. */
private class Problems(
    private val sink: MutableList<String>,
    private val prefix: String,
) {
    fun add(problem: String) {
        sink += prefix + problem
    }
}

private fun MutableList<String>.withPrefix(prefix: String) = Problems(this, prefix)
