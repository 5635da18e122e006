package dev.danki.operator

import ch.qos.logback.classic.Logger
import ch.qos.logback.classic.LoggerContext
import ch.qos.logback.classic.joran.JoranConfigurator
import dev.danki.operator.config.OperatorConfig
import io.kotest.matchers.nulls.shouldNotBeNull
import io.kotest.matchers.shouldBe
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test

/** logback.xml picks its appender by name, case-sensitively: the format must reach it spelled as the appender. */
class LogSettingsTest {
    /** The build sets the property for every test (text logs); each test here starts without it. */
    private val original: String? = System.getProperty(LogSettings.FORMAT_PROPERTY)

    @BeforeEach
    fun clear() {
        System.clearProperty(LogSettings.FORMAT_PROPERTY)
    }

    @AfterEach
    fun restore() {
        if (original == null) {
            System.clearProperty(LogSettings.FORMAT_PROPERTY)
        } else {
            System.setProperty(LogSettings.FORMAT_PROPERTY, original)
        }
    }

    /** The root logger's appenders when logback.xml is read with the current system properties. */
    private fun rootAppenders(): List<String> {
        val context = LoggerContext()
        JoranConfigurator().apply { this.context = context }.doConfigure(javaClass.getResource("/logback.xml"))
        val root = context.getLogger(Logger.ROOT_LOGGER_NAME)
        return root
            .iteratorForAppenders()
            .asSequence()
            .map { it.name }
            .toList()
            .also { context.stop() }
    }

    @Test
    fun `every log format, however the variable was spelled, names an appender of logback-xml`() {
        for (format in OperatorConfig.LogFormat.entries) {
            LogSettings.apply(OperatorConfig(logFormat = format))
            rootAppenders() shouldBe listOf(format.name.lowercase())
        }
    }

    @Test
    fun `an appender name in the wrong case attaches nothing, which is why the setting is normalised`() {
        System.setProperty(LogSettings.FORMAT_PROPERTY, "JSON")
        rootAppenders() shouldBe emptyList()
    }

    @Test
    fun `without the property logback falls back to json`() {
        rootAppenders().firstOrNull().shouldNotBeNull() shouldBe "json"
    }
}
