package dev.danki.cli

import kotlin.system.exitProcess

fun main(args: Array<String>) {
    // before any logger exists: the CLI's quiet stderr logging, not the operator's JSON lines
    System.setProperty("logback.configurationFile", "danki-cli-logback.xml")
    exitProcess(DankiCommand.run(args))
}
