#!/usr/bin/env bash
# lint-workflows.sh - actionlint on the GitHub workflows, then a self-test: broken copies of
# release.yml must fail it, so a lint that silently checks nothing cannot pass.
#
#   tools/lint-workflows.sh ACTIONLINT
#
# actionlint runs shellcheck on every run: block (it finds shellcheck on PATH).
set -euo pipefail
ACTIONLINT=${1:?usage: $0 ACTIONLINT}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
WORKFLOWS=(.github/workflows/ci.yml .github/workflows/release.yml)

"$ACTIONLINT" "${WORKFLOWS[@]}"
echo "actionlint: ${WORKFLOWS[*]} clean"

# Each variant: a description, then a sed expression that breaks release.yml in that way.
# shellcheck disable=SC2016 # the $ in the expressions is release.yml's, not ours
variants=(
  "a job output read from a job not in needs" 's/needs\.version\.outputs\.registry/needs.versoin.outputs.registry/'
  "a step output read from a step that does not exist" 's/steps\.push\.outputs\.digest/steps.pushed.outputs.digest/'
  "a run: block that does not parse" 's/echo "digest=$digest"/echo "digest=$digest/'
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
for ((i = 0; i < ${#variants[@]}; i += 2)); do
  what=${variants[i]} edit=${variants[i + 1]}
  sed "$edit" .github/workflows/release.yml >"$tmp/.github/workflows/release.yml"
  if cmp -s .github/workflows/release.yml "$tmp/.github/workflows/release.yml"; then
    echo "lint-workflows self-test: '$edit' no longer changes release.yml; update the variant" >&2; exit 1
  fi
  if (cd "$tmp" && "$ACTIONLINT" .github/workflows/release.yml >/dev/null 2>&1); then
    echo "lint-workflows self-test: actionlint passed release.yml with $what" >&2; exit 1
  fi
  echo "actionlint self-test: catches $what"
done
