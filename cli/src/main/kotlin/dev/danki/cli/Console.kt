package dev.danki.cli

import java.io.PrintStream

/** Where a command writes: tables and progress to [out], problems to [err]; tests pass their own. */
class Console(
    val out: PrintStream = System.out,
    val err: PrintStream = System.err,
)
