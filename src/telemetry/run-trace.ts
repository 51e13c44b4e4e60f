/**
 * A run's OpenTelemetry trace: one span for the run, one per tool call (from the run's
 * tool-start and tool-end events) and the AI SDK's spans of each model call (`@ai-sdk/otel`,
 * handed to each call as its telemetry integration), all under the run's span and exported over
 * OTLP/HTTP (protobuf, or JSON). Loaded only when a run with telemetry starts (see lazy.ts).
 *
 * What a span never holds: a tool's arguments (URLs, queries), an API key, token or cookie, an
 * error's message. The question, prompts and answers only with `recordContent`; otherwise the
 * question's length.
 */

import { OpenTelemetry } from "@ai-sdk/otel";
import {
  type Attributes,
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { TelemetryOptions } from "ai";
import type { EventInput } from "../core/events.ts";
import type { TelemetrySettings } from "./settings.ts";

/** What the trace of a run is opened with. */
export interface RunTraceInfo {
  runId: string;
  strategy: string;
  query: string;
  /** A run taken up again (its earlier attempts had spans of their own). */
  resumed: boolean;
}

/** The trace of one run. */
export interface RunTrace {
  /** Sees each event of the run as it is emitted (tool spans, the run's end). */
  observe(event: EventInput): void;
  /** The AI SDK telemetry options of one model call: its spans become children of the run's. */
  modelCall(call: { role: string; callId: string }): TelemetryOptions;
  /** Ends what is still open and exports the spans (waits at most a few seconds). */
  end(): Promise<void>;
}

/** Export time limit, and how long {@link RunTrace.end} waits for the export. */
const EXPORT_TIMEOUT_MS = 5_000;

const providers = new Map<string, TracerProvider>();

/** One tracer provider per destination, kept for the process (its batch exporter is shared). */
function providerFor(settings: TelemetrySettings): TracerProvider {
  const key = JSON.stringify([settings.protocol, settings.tracesUrl, settings.headers, settings.serviceName]);
  const Exporter = settings.protocol === "http/json" ? JsonExporter : ProtobufExporter;
  let provider = providers.get(key);
  if (!provider) {
    provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": settings.serviceName }),
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: new Exporter({
            url: settings.tracesUrl,
            headers: settings.headers,
            timeoutMillis: EXPORT_TIMEOUT_MS,
          }),
          exportTimeoutMillis: EXPORT_TIMEOUT_MS,
        }),
      ],
    });
    providers.set(key, provider);
  }
  return provider;
}

/**
 * A tracer whose spans without an explicit parent become children of `parent`: the AI SDK's
 * model-call spans join the run's trace without a process-wide context manager.
 */
function parentedTracer(tracer: Tracer, parent: Context): Tracer {
  return {
    startSpan: (name, options, context) => tracer.startSpan(name, options, context ?? parent),
    startActiveSpan: ((name: string, ...rest: unknown[]) =>
      (tracer.startActiveSpan as (...args: unknown[]) => unknown)(
        name,
        ...rest,
      )) as Tracer["startActiveSpan"],
  };
}

/** Opens the trace of a run: its span starts now. */
export function openRunTrace(settings: TelemetrySettings, info: RunTraceInfo): RunTrace {
  const provider = providerFor(settings);
  const tracer = provider.getTracer("dossier");
  const runSpan = tracer.startSpan(
    "dossier.run",
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "dossier.run.id": info.runId,
        "dossier.strategy": info.strategy,
        "dossier.question.length": info.query.length,
        ...(settings.recordContent ? { "dossier.question": info.query } : {}),
        ...(info.resumed ? { "dossier.run.resumed": true } : {}),
      },
    },
    // A span the caller has active (a library user's own trace, with their context manager)
    // becomes the run's parent; otherwise the run starts a trace.
    context.active(),
  );
  const runContext = trace.setSpan(ROOT_CONTEXT, runSpan);
  const modelTracer = parentedTracer(tracer, runContext);
  const tools = new Map<string, Span>();
  let ended = false;

  const toolSpan = (callId: string, tool: string, provider: string | undefined, startTime?: number) =>
    tracer.startSpan(
      `execute_tool ${tool}`,
      {
        kind: SpanKind.INTERNAL,
        ...(startTime === undefined ? {} : { startTime }),
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": tool,
          "dossier.tool.call_id": callId,
          ...(provider ? { "dossier.tool.provider": provider } : {}),
        },
      },
      runContext,
    );

  const observe = (event: EventInput): void => {
    if (ended) return;
    switch (event.type) {
      case "tool-start": {
        tools.get(event.callId)?.end();
        tools.set(event.callId, toolSpan(event.callId, event.tool, event.provider));
        return;
      }
      case "tool-end": {
        const span =
          tools.get(event.callId) ??
          toolSpan(event.callId, event.tool, event.provider, Date.now() - event.latencyMs);
        tools.delete(event.callId);
        const attributes: Attributes = {
          "dossier.tool.status": event.ok ? "ok" : "error",
          "dossier.tool.cached": event.cached,
          "dossier.tool.duration_ms": event.latencyMs,
        };
        if (event.queueMs !== undefined) attributes["dossier.tool.queue_ms"] = event.queueMs;
        if (event.resultCount !== undefined) attributes["dossier.tool.result_count"] = event.resultCount;
        if (event.error) attributes["error.type"] = event.error.code;
        span.setAttributes(attributes);
        if (!event.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: event.error?.code ?? "failed" });
        span.end();
        return;
      }
      case "run-end": {
        const attributes: Attributes = {
          "dossier.run.status": event.status,
          "dossier.run.stop_reason": event.stopReason.slice(0, 200),
        };
        const usage = event.usage;
        if (usage) {
          if (usage.inputTokens !== null) attributes["dossier.usage.input_tokens"] = usage.inputTokens;
          if (usage.outputTokens !== null) attributes["dossier.usage.output_tokens"] = usage.outputTokens;
          attributes["dossier.usage.llm_calls"] = usage.llmCalls;
          attributes["dossier.usage.tool_calls"] = usage.toolCalls;
          if (usage.costUsd !== null) attributes["dossier.usage.cost_usd"] = usage.costUsd;
        }
        if (event.error) attributes["error.type"] = event.error.code;
        runSpan.setAttributes(attributes);
        if (event.status === "failed") {
          runSpan.setStatus({ code: SpanStatusCode.ERROR, message: event.error?.code ?? "failed" });
        } else if (event.status === "completed") runSpan.setStatus({ code: SpanStatusCode.OK });
        return;
      }
      default:
        return;
    }
  };

  return {
    observe,
    modelCall: ({ role, callId }) => ({
      functionId: `dossier.${role}`,
      recordInputs: settings.recordContent,
      recordOutputs: settings.recordContent,
      integrations: new OpenTelemetry({
        tracer: modelTracer,
        agentSpanName: "functionId",
        enrichSpan: () => ({ "dossier.run.id": info.runId, "dossier.role": role, "dossier.call_id": callId }),
      }),
    }),
    async end() {
      if (ended) return;
      ended = true;
      for (const span of tools.values()) {
        span.setAttribute("dossier.tool.status", "unfinished");
        span.end();
      }
      tools.clear();
      runSpan.end();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.forceFlush().catch(() => {
          // A collector that cannot be reached never fails the run.
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, EXPORT_TIMEOUT_MS + 1_000);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
