#!/usr/bin/env bash
# smoke.sh - does the built spring-shop jar start, answer every warm-up request with a 2xx and expose
# the JIT counter? Starts target/spring-shop.jar on a free 127.0.0.1 port, waits for readiness
# (READY_TIMEOUT_S, default 60), sends each line of warmup-paths.txt once, checks /actuator/prometheus
# for jvm_compilation_time_ms_total, prints the time from `java` start to the first readiness 200, and
# stops the JVM on any exit.
#
# Build first:  mvn -B -ntp -f bench/targets/spring-shop/pom.xml package -DskipTests
# Run:          bench/targets/spring-shop/smoke.sh        (JAVA picks the java binary, default java)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JAR=$HERE/target/spring-shop.jar
PATHS_FILE=$HERE/warmup-paths.txt
JAVA=${JAVA:-java}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-60}
# the JVM's stop: SIGTERM lets Spring shut down gracefully; SIGKILL after this many tenths of a second
STOP_GRACE_TENTHS=100

die() { echo "smoke: $*" >&2; exit 1; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# free_port: a random port in 20000-59999 that nothing on 127.0.0.1 answers on (20 tries).
free_port() {
  local port
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

stop_jvm() {
  local tenths=0
  [[ -n ${JVM_PID:-} ]] || return 0
  kill "$JVM_PID" 2>/dev/null || true
  while kill -0 "$JVM_PID" 2>/dev/null && ((tenths < STOP_GRACE_TENTHS)); do
    sleep 0.1
    tenths=$((tenths + 1))
  done
  kill -9 "$JVM_PID" 2>/dev/null || true
  wait "$JVM_PID" 2>/dev/null || true
}

on_exit() {
  local rc=$?
  stop_jvm
  if ((rc != 0)) && [[ -f ${LOG:-} ]]; then
    echo "--- last lines of the app's log" >&2
    tail -n 30 "$LOG" >&2
  fi
  rm -rf "${WORK:-}"
}

[[ -f $JAR ]] || die "no $JAR; build it first (see the header of this script)"
[[ -f $PATHS_FILE ]] || die "no $PATHS_FILE"
PORT=$(free_port) || die "found no free port on 127.0.0.1"
BASE=http://127.0.0.1:$PORT
WORK=$(mktemp -d)
LOG=$WORK/app.log
trap on_exit EXIT

# SERVER_ADDRESS overrides the app's 0.0.0.0: the smoke listens on loopback only. Tomcat's work
# folder goes in WORK too, so nothing is left in /tmp.
START_MS=$(now_ms)
SERVER_ADDRESS=127.0.0.1 PORT=$PORT "$JAVA" -Djava.io.tmpdir="$WORK" -jar "$JAR" >"$LOG" 2>&1 &
JVM_PID=$!

deadline=$((START_MS + READY_TIMEOUT_S * 1000))
until [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$BASE/actuator/health/readiness") == 200 ]]; do
  kill -0 "$JVM_PID" 2>/dev/null || die "the JVM exited before it was ready"
  (($(now_ms) < deadline)) || die "not ready within ${READY_TIMEOUT_S}s"
  sleep 0.1
done
READY_MS=$(($(now_ms) - START_MS))
echo "smoke: ready on $BASE after ${READY_MS} ms (java start to first readiness 200)"

sent=0
failed=0
while IFS= read -r line || [[ -n $line ]]; do
  [[ -n ${line// /} ]] || continue
  read -r method path body <<<"$line"
  args=(-s -o /dev/null -w '%{http_code}' --max-time 10 -X "$method")
  if [[ -n ${body:-} ]]; then
    args+=(-H 'Content-Type: application/json' --data "$body")
  fi
  code=$(curl "${args[@]}" "$BASE$path") || code=000
  sent=$((sent + 1))
  if [[ $code == 2?? ]]; then
    echo "smoke: $code $method $path"
  else
    echo "smoke: $code $method $path  <- expected 2xx" >&2
    failed=$((failed + 1))
  fi
done <"$PATHS_FILE"
((sent > 0)) || die "warmup-paths.txt holds no request"

metrics=$(curl -s --max-time 10 "$BASE/actuator/prometheus") || die "could not scrape /actuator/prometheus"
if grep -q '^jvm_compilation_time_ms_total' <<<"$metrics"; then
  echo "smoke: /actuator/prometheus has jvm_compilation_time_ms_total"
else
  echo "smoke: /actuator/prometheus lacks jvm_compilation_time_ms_total" >&2
  failed=$((failed + 1))
fi

echo "$((sent + 1 - failed)) passed, $failed failed"
((failed == 0))
