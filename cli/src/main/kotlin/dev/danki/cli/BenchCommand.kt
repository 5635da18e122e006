package dev.danki.cli

import com.github.ajalt.clikt.parameters.arguments.argument
import com.github.ajalt.clikt.parameters.groups.provideDelegate
import com.github.ajalt.clikt.parameters.options.convert
import com.github.ajalt.clikt.parameters.options.default
import com.github.ajalt.clikt.parameters.options.option
import dev.danki.operator.warmup.WarmupPlan

/**
 * `danki bench <url>`: the operator's own k6 warm-up (k6-scripts/warmup.js, the same stop rule and
 * settings) against any URL, without Kubernetes, to tune a plan on a laptop before deploying it.
 */
class BenchCommand(
    console: Console,
) : DankiSubcommand("bench", console) {
    override fun help(context: com.github.ajalt.clikt.core.Context) =
        "Run danki's warm-up (warm-up to the stop rule, its first answers the cold figures, warm pass) " +
            "against URL with k6 and print the cold vs warm table. --paths takes the danki.dev/paths lines, " +
            "e.g. 'GET /exams/1'."

    private val url by argument("URL", help = "base URL, e.g. http://127.0.0.1:8080")
    private val timeout by option("--timeout", help = "hard stop for the whole run, e.g. 5m")
        .convert { Arguments.duration(it) }
        .default(WarmupPlan.DEFAULT_TIMEOUT)
    private val warmup by WarmupOptions()

    override fun execute(): ExitCode {
        val result = LocalWarmup(warmup, console).run(BaseUrl.parse(url), timeout, "bench")
        console.out.print(ResultTable.render(listOf(result), null, ResultTable.Format.TABLE, waits = false))
        return if (result.warmed) ExitCode.OK else ExitCode.NO_GO
    }
}
