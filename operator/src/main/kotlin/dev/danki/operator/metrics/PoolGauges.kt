package dev.danki.operator.metrics

/** Sums what the local pool and the runner pool each report, for the one pair of pool gauges. */
class PoolGauges(
    private val publish: (running: Int, queued: Int) -> Unit,
) {
    private var local = 0 to 0
    private var runners = 0 to 0

    @Synchronized
    fun local(running: Int, queued: Int) {
        local = running to queued
        publishSum()
    }

    @Synchronized
    fun runners(running: Int, queued: Int) {
        runners = running to queued
        publishSum()
    }

    private fun publishSum() = publish(local.first + runners.first, local.second + runners.second)
}
