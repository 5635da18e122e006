#!/usr/bin/env bash
# Start and stop sample-service as a background JVM, for the k6 smoke run and the benchmark.
# Source this file, then:
#   sample_start LOG [VAR=value ...]   starts the jar on a free loopback port (and its gRPC service on another)
#                                      with extra env, waits for /readyz, and sets SAMPLE_PID, SAMPLE_URL and
#                                      SAMPLE_GRPC_PORT
#   sample_stop                        stops the JVM started by sample_start (by its pid)
# Reads SAMPLE_JAR (default <repo>/sample-service/target/sample-service-all.jar).

SAMPLE_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SAMPLE_JAR="${SAMPLE_JAR:-$SAMPLE_REPO/sample-service/target/sample-service-all.jar}"
SAMPLE_READY_TIMEOUT_SECONDS=90
SAMPLE_PID=""
SAMPLE_URL=""
SAMPLE_GRPC_PORT=""

# shellcheck source=SCRIPTDIR/../../tools/free-port.sh
source "$SAMPLE_REPO/tools/free-port.sh"

sample_start() {
  local log="$1"; shift
  [[ -f "$SAMPLE_JAR" ]] || { echo "service.sh: $SAMPLE_JAR missing: build it (make build)" >&2; return 1; }
  local port grpc_port
  port="$(free_port)" || return 1
  # a free port for gRPC too: its default 9090 would clash between two services on one host
  grpc_port="$(free_port)" || return 1
  [[ "$grpc_port" != "$port" ]] || grpc_port="$(free_port)" || return 1
  SAMPLE_GRPC_PORT="$grpc_port"
  env HOST=127.0.0.1 PORT="$port" GRPC_PORT="$grpc_port" "$@" java -jar "$SAMPLE_JAR" >"$log" 2>&1 &
  SAMPLE_PID=$!
  SAMPLE_URL="http://127.0.0.1:$port"
  local deadline=$((SECONDS + SAMPLE_READY_TIMEOUT_SECONDS))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$SAMPLE_PID" 2>/dev/null; then
      echo "service.sh: sample-service exited during start-up; log $log:" >&2
      tail -n 20 "$log" >&2
      SAMPLE_PID=""
      return 1
    fi
    if curl -sf -o /dev/null --max-time 2 "$SAMPLE_URL/readyz"; then return 0; fi
    sleep 0.5
  done
  echo "service.sh: sample-service not ready after ${SAMPLE_READY_TIMEOUT_SECONDS}s; log $log" >&2
  sample_stop
  return 1
}

sample_stop() {
  [[ -n "$SAMPLE_PID" ]] || return 0
  kill "$SAMPLE_PID" 2>/dev/null || true
  local i
  for i in $(seq 1 40); do
    kill -0 "$SAMPLE_PID" 2>/dev/null || break
    sleep 0.25
  done
  kill -9 "$SAMPLE_PID" 2>/dev/null || true
  wait "$SAMPLE_PID" 2>/dev/null || true
  SAMPLE_PID=""
}
