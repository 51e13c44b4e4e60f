/**
 * Opening a run's trace without loading OpenTelemetry before it is needed: run-trace.ts (and
 * with it the OpenTelemetry SDK, the OTLP exporter and `@ai-sdk/otel`) is imported when the
 * first run with telemetry starts, never by `import("dossier")`.
 */

import type { RunTrace, RunTraceInfo } from "./run-trace.ts";
import type { TelemetrySettings } from "./settings.ts";

/** Opens the trace of a run (loads the OpenTelemetry modules on the first call). */
export async function startRunTrace(settings: TelemetrySettings, info: RunTraceInfo): Promise<RunTrace> {
  const { openRunTrace } = await import("./run-trace.ts");
  return openRunTrace(settings, info);
}
