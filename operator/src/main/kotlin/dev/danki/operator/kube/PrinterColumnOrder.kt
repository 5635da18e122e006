package dev.danki.operator.kube

import com.fasterxml.jackson.databind.node.ArrayNode
import com.fasterxml.jackson.databind.node.ObjectNode
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn
import java.io.File

/**
 * A build step after fabric8's crd-generator, which sorts printer columns by JSON path (7.5.2 has no
 * option to keep them as declared): puts each CRD's columns back in the order its class declares them,
 * so `kubectl get warmupruns` shows POD, PHASE, WAITED, COLD-P95, WARM-P95, REQUESTS, STOP, BOOST,
 * DURATION, AGE. Everything else in the file is left as generated. Run by exec-maven-plugin on every CRD file.
 */
object PrinterColumnOrder {
    private val yaml =
        YAMLMapper(
            YAMLFactory
                .builder()
                .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                .build(),
        )

    /** The JSON paths of WarmupRun's printer columns, in declaration order. */
    val declared: List<String> = declaredBy(WarmupRun::class.java)

    /** Each custom resource's kind and its printer columns' JSON paths, in declaration order. */
    private val byKind: Map<String, List<String>> =
        mapOf(
            Keys.RUN_KIND to declared,
            Keys.HISTORY_KIND to declaredBy(WarmupHistory::class.java),
            Keys.AOT_CACHE_KIND to declaredBy(AotCache::class.java),
        )

    private fun declaredBy(type: Class<*>): List<String> {
        val columns = type.getAnnotationsByType(AdditionalPrinterColumn::class.java)
        return columns.map { it.jsonPath }
    }

    @JvmStatic
    fun main(args: Array<String>) {
        for (path in args) {
            val file = File(path)
            val kind = yaml.readTree(file).at("/spec/names/kind").asText()
            val order = byKind[kind] ?: error("$path: no printer column order known for kind '$kind'")
            file.writeText(reorder(file.readText(), order))
        }
    }

    /** [crd] with each version's printer columns ordered by [order] (JSON paths); header comments kept. */
    fun reorder(crd: String, order: List<String>): String {
        val header = crd.lineSequence().takeWhile { it.startsWith("#") }.joinToString("") { "$it\n" }
        val root = yaml.readTree(crd) as ObjectNode
        for (version in root.at("/spec/versions")) {
            val columns = version.path("additionalPrinterColumns") as? ArrayNode ?: continue
            // a column WarmupRun does not declare (none today) goes last
            val rank = { path: String -> order.indexOf(path).let { if (it < 0) order.size else it } }
            val sorted = columns.sortedBy { rank(it.path("jsonPath").asText()) }
            columns.removeAll()
            columns.addAll(sorted)
        }
        return header + yaml.writeValueAsString(root)
    }
}
