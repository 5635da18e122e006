package dev.danki.cluster.policy

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement
import kotlin.test.Test
import kotlin.test.assertEquals

class LabelSelectorsTest {
    private val labels = mapOf("app" to "web", "tier" to "front")

    private fun selector(operator: String, key: String, vararg values: String) =
        LabelSelectorBuilder().addToMatchExpressions(LabelSelectorRequirement(key, operator, values.toList())).build()

    @Test
    fun `an empty selector matches every pod`() {
        assertEquals(true, LabelSelectorBuilder().build().matches(labels))
        assertEquals(true, LabelSelectorBuilder().build().matches(emptyMap()))
    }

    @Test
    fun `matchLabels needs every pair`() {
        assertEquals(true, LabelSelectorBuilder().addToMatchLabels("app", "web").build().matches(labels))
        val both = LabelSelectorBuilder().addToMatchLabels("app", "web").addToMatchLabels("tier", "back").build()
        assertEquals(false, both.matches(labels))
    }

    @Test
    fun `matchExpressions follow the API's operators`() {
        assertEquals(true, selector("In", "app", "web", "api").matches(labels))
        assertEquals(false, selector("In", "app", "api").matches(labels))
        assertEquals(true, selector("NotIn", "app", "api").matches(labels))
        assertEquals(true, selector("NotIn", "missing", "x").matches(labels))
        assertEquals(true, selector("Exists", "tier").matches(labels))
        assertEquals(false, selector("DoesNotExist", "tier").matches(labels))
        assertEquals(false, selector("Typo", "tier").matches(labels), "an unknown operator must not open traffic")
    }
}
