package dev.danki.sample.exam

/** How close a written answer is to a model answer: normalised edit distance and keyword cover. */
object TextSimilarity {
    private val NOT_WORD = Regex("[^\\p{L}\\p{N}]+")

    /** Lower case, punctuation to spaces, runs of spaces collapsed. */
    fun normalise(text: String): String = text.lowercase().replace(NOT_WORD, " ").trim()

    /** 1.0 for equal strings down to 0.0, from the Levenshtein distance over the longer length. */
    fun similarity(a: String, b: String): Double {
        val longest = maxOf(a.length, b.length)
        if (longest == 0) return 1.0
        return 1.0 - levenshtein(a, b).toDouble() / longest
    }

    /** Share of [keywords] that appear as whole words in the normalised [text]. */
    fun keywordCover(text: String, keywords: List<String>): Double {
        if (keywords.isEmpty()) return 1.0
        val words = text.split(' ').toSet()
        return keywords.count { it in words }.toDouble() / keywords.size
    }

    /** Classic two-row dynamic programme: O(a*b) time, the part of scoring the JIT speeds up most. */
    fun levenshtein(a: String, b: String): Int {
        var previous = IntArray(b.length + 1) { it }
        var current = IntArray(b.length + 1)
        for (i in 1..a.length) {
            current[0] = i
            for (j in 1..b.length) {
                val substitution = previous[j - 1] + if (a[i - 1] == b[j - 1]) 0 else 1
                current[j] = minOf(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            val swap = previous
            previous = current
            current = swap
        }
        return previous[b.length]
    }
}
