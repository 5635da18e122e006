{{/* Chart name, shortened to the 63 characters a label value allows. */}}
{{- define "danki.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified name of every object: the release name, unless it already contains the chart name. */}}
{{- define "danki.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every object, so `-l app.kubernetes.io/instance=<release>` finds them all. */}}
{{- define "danki.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "danki.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: danki
{{- end }}

{{/* Labels that select the operator pods; never change them, a Deployment's selector is immutable. */}}
{{- define "danki.selectorLabels" -}}
app.kubernetes.io/name: {{ include "danki.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* The ServiceAccount the operator runs as. */}}
{{- define "danki.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "danki.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* A repository of danki's, behind image.registry when that is set. Takes (list $ repository). */}}
{{- define "danki.repository" -}}
{{- $root := index . 0 }}{{ $repository := index . 1 }}
{{- if $root.Values.image.registry }}
{{- printf "%s/%s" $root.Values.image.registry $repository }}
{{- else }}
{{- $repository }}
{{- end }}
{{- end }}

{{/* The operator image: registry and repository, then @digest if set, else :tag (default: the chart's appVersion). */}}
{{- define "danki.image" -}}
{{- $repository := include "danki.repository" (list . .Values.image.repository) }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The runner image: registry and repository, then :tag (default: the chart's appVersion). */}}
{{- define "danki.runnerImage" -}}
{{- printf "%s:%s" (include "danki.repository" (list . .Values.runner.image.repository)) (default .Chart.AppVersion .Values.runner.image.tag) }}
{{- end }}

{{/* The watched namespaces as the operator reads them: a comma list, empty for all. */}}
{{- define "danki.watchNamespaces" -}}
{{- join "," .Values.watchNamespaces }}
{{- end }}

{{/* The rules the operator needs wherever it watches; one list for the ClusterRole and every Role. */}}
{{- define "danki.watchRules" -}}
# Find opted-in Deployments (informer; get: the webhook reads a pod's Deployment past its cache).
- apiGroups: ["apps"]
  resources: ["deployments"]
{{- if or (ne .Values.gateInjection "webhook") .Values.webhook.stripTemplateGates }}
  # patch: apply the pod template label and readiness gate (server-side apply; fabric8 reads the object
  # first); in webhook mode only to take off a gate template mode wrote (webhook.stripTemplateGates).
  verbs: ["get", "list", "watch", "patch"]
{{- else }}
  # no patch: webhook mode changes no Deployment (webhook.stripTemplateGates grants it)
  verbs: ["get", "list", "watch"]
{{- end }}
# Watch pods become ContainersReady; the operator never writes a pod itself. get: read by fabric8
# before each pods/status patch, as for Deployments.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
# Set the danki.dev/warmed readiness-gate condition.
- apiGroups: [""]
  resources: ["pods/status"]
  verbs: ["patch"]
# WarmupStarted, WarmedUp, WarmupFailed and InvalidWarmupConfig Events (core/v1, as fabric8's client.v1().events()).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
# The operator's own record of each warm-up; the garbage collector deletes it with its pod. get: a
# create that meets an existing run (a restarted operator) takes that one over.
- apiGroups: ["danki.dev"]
  resources: ["warmupruns"]
  verbs: ["get", "list", "watch", "create"]
# The run's status, written with server-side apply.
- apiGroups: ["danki.dev"]
  resources: ["warmupruns/status"]
  verbs: ["patch"]
{{- if gt (int .Values.history.retention) 0 }}
# Each Deployment's WarmupHistory (named after it, owned by it, so deleted with it): read by name and
# created once; its status (the last results) written with server-side apply. Never listed.
- apiGroups: ["danki.dev"]
  resources: ["warmuphistories"]
  verbs: ["get", "create"]
- apiGroups: ["danki.dev"]
  resources: ["warmuphistories/status"]
  verbs: ["patch"]
{{- end }}
{{- if eq .Values.gateInjection "webhook" }}
# A pod created without the gate (webhook unreachable) is evicted, so that its ReplicaSet recreates it
# gated (webhook.ungatedPods replace, or a Deployment's danki.dev/ungated-pods: replace). The Eviction
# API, not a delete: PodDisruptionBudgets hold.
- apiGroups: [""]
  resources: ["pods/eviction"]
  verbs: ["create"]
{{- end }}
{{- if include "danki.cpuBoost" . }}
# A gated pod's CPU boost (danki.dev/warmup-cpu): its container's CPU raised in place for the warm-up,
# restored before the gate. The resize subresource only changes resources, nothing else of the pod.
- apiGroups: [""]
  resources: ["pods/resize"]
  verbs: ["patch"]
{{- end }}
{{- if .Values.runner.enabled }}
# Runner pods for custom flows, and the NetworkPolicy that fences each; both deleted after the run.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create", "delete"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["create", "delete"]
# The flow's ConfigMap, read by name to refuse a missing one precisely; never a Secret.
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get"]
{{- end }}
{{- if .Values.aotCache.enabled }}
# AOT caches: each Deployment's AotCache (named after it, owned by it) and its status, which only
# danki writes; the claim that stores the file, created once and watched (danki's own, by label), so
# that no pod is given a claim that is gone; the training and sealing pods, deleted
# after each training (create/delete also come with runner.enabled, which aotCache needs); and the
# first bytes of a pod's log, where its JVM says whether it refused the cache.
- apiGroups: ["danki.dev"]
  resources: ["aotcaches"]
  verbs: ["get", "list", "watch", "create"]
- apiGroups: ["danki.dev"]
  resources: ["aotcaches/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create"]
- apiGroups: [""]
  resources: ["pods/log"]
  verbs: ["get"]
{{- end }}
{{- end }}

{{/*
Whether the CPU boost is on: cpuBoost.enabled true or false, or `auto`: on where the API server is
Kubernetes 1.33 or later, which serves in-place pod resize (pods/resize). "true" or "".
*/}}
{{- define "danki.cpuBoost" -}}
{{- $enabled := .Values.cpuBoost.enabled }}
{{- if eq (toString $enabled) "auto" }}
{{- if semverCompare ">=1.33.0-0" .Capabilities.KubeVersion.Version }}true{{ end }}
{{- else if $enabled }}true
{{- end }}
{{- end }}
