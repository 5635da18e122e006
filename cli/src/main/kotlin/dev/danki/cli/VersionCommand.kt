package dev.danki.cli

import dev.danki.operator.BuildInfo

/**
 * `danki version`: the version this CLI was built as, which is also the chart's version and its
 * default image tag (appVersion), so `danki version` tells which chart and operator go with it.
 * Only the version on stdout, so a script can compare it as it is.
 */
class VersionCommand(
    console: Console,
) : DankiSubcommand("version", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Print danki's version: the CLI's, and the chart's and operator image's it goes with."

    override fun execute(): ExitCode {
        console.out.println(BuildInfo.version)
        return ExitCode.OK
    }
}
