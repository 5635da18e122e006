package dev.danki.cluster.net

/** Raised when the command line is incomplete or wrong; carries every problem at once. */
class BadArgumentsException(
    val problems: List<String>,
) : IllegalArgumentException(problems.joinToString("; "))
