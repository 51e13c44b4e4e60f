/**
 * Opening a run's trace without loading OpenTelemetry before it is needed: run-trace.ts (and
 * with it the OpenTelemetry SDK, the OTLP exporter and `@ai-sdk/otel`) is imported when the
 * first run with telemetry starts, never by `import("dossier")`.
 */

import type { RunTrace, RunTraceInfo } from "./run-trace.ts";
import type { TelemetrySettings } from "./settings.ts";

let used = false;

/** Opens the trace of a run (loads the OpenTelemetry modules on the first call). */
export async function startRunTrace(settings: TelemetrySettings, info: RunTraceInfo): Promise<RunTrace> {
  used = true;
  const { openRunTrace } = await import("./run-trace.ts");
  return openRunTrace(settings, info);
}

/** Exports what is pending and closes every exporter; nothing to do when no run had telemetry. */
export async function shutdownTelemetry(): Promise<void> {
  if (!used) return;
  const { shutdownTelemetry: shutdown } = await import("./run-trace.ts");
  await shutdown();
}
