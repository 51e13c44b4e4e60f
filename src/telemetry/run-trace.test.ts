/**
 * OpenTelemetry spans of a scripted research run in the loopback world, received by a real
 * OTLP/HTTP receiver on loopback (protobuf, the default encoding): one trace per run, the run's span at its root, one
 * `execute_tool` span per tool call and the AI SDK's `invoke_agent → step → chat` spans per
 * model call under it, with the figures of the run's own events; and nothing of the question,
 * the prompts, the URLs or the keys unless content recording is switched on.
 */

import { context, trace } from "@opentelemetry/api";
import { StackContextManager, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../../test/fake-otlp/index.ts";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import type { DossierEvent, EventOf } from "../core/events.ts";
import { configSchema } from "../runtime/config.ts";
import { openRunTrace } from "./run-trace.ts";
import { telemetrySettings } from "./settings.ts";

const QUESTION = "Which topic saw measured growth in the 2025 survey?";
const EXPECT_CALLS = { "smtl-plan": 1, "smtl-step": 2, reader: 1 };
const OTEL_KEY = "otel-key-3141";

let world: ResearchWorld | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await world?.close();
  await receiver?.close();
  world = undefined;
  receiver = undefined;
});

async function tracedRun(recordContent: boolean) {
  receiver = await startOtlpReceiver();
  world = await startResearchWorld({
    expectCalls: EXPECT_CALLS,
    config: { telemetry: { enabled: true, recordContent } },
  });
  const result = await world.research(
    {
      query: QUESTION,
      strategy: "smtl",
      strategyOptions: { mode: "answer" },
      currentDate: "2026-03-01",
      formats: ["md"],
    },
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${OTEL_KEY}`,
      },
    },
  );
  expect(result.record.status).toBe("completed");
  return { result, spans: receiver.spans, events: result.events };
}

const ofType = <T extends DossierEvent["type"]>(events: DossierEvent[], type: T) =>
  events.filter((e): e is EventOf<T> => e.type === type);

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((s) => s.parentSpanId === parent.spanId);

describe("a research run's OpenTelemetry spans", () => {
  it("form one trace: the run, its tool calls and its model calls, with the events' figures", async () => {
    const { result, spans, events } = await tracedRun(false);

    // One trace, one root: the run.
    const roots = spans.filter((s) => s.parentSpanId === "");
    expect(roots.map((s) => s.name)).toEqual(["dossier.run"]);
    const run = roots[0]!;
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([run.traceId]));
    expect(run.resource["service.name"]).toBe("dossier");
    expect(run.attributes).toMatchObject({
      "dossier.run.id": result.runId,
      "dossier.strategy": "smtl",
      "dossier.question.length": QUESTION.length,
      "dossier.run.status": "completed",
      "dossier.run.stop_reason": result.record.stopReason,
      "dossier.usage.llm_calls": result.record.usage?.llmCalls,
      "dossier.usage.tool_calls": result.record.usage?.toolCalls,
      "dossier.usage.input_tokens": result.record.usage?.inputTokens,
    });
    expect(run.status.code).toBe(1);

    // One span per tool call, under the run, with the tool-end event's outcome.
    const toolEnds = ofType(events, "tool-end");
    expect(toolEnds.length).toBeGreaterThan(3);
    const toolSpans = spans.filter((s) => s.name.startsWith("execute_tool "));
    expect(toolSpans.map((s) => s.attributes["dossier.tool.call_id"]).sort()).toEqual(
      toolEnds.map((e) => e.callId).sort(),
    );
    for (const end of toolEnds) {
      const span = toolSpans.find((s) => s.attributes["dossier.tool.call_id"] === end.callId)!;
      expect(span.name).toBe(`execute_tool ${end.tool}`);
      expect(span.parentSpanId).toBe(run.spanId);
      expect(span.attributes).toMatchObject({
        "gen_ai.tool.name": end.tool,
        "dossier.tool.status": end.ok ? "ok" : "error",
        "dossier.tool.cached": end.cached,
        "dossier.tool.duration_ms": end.latencyMs,
      });
      if (end.provider) expect(span.attributes["dossier.tool.provider"]).toBe(end.provider);
      if (end.resultCount !== undefined) {
        expect(span.attributes["dossier.tool.result_count"]).toBe(end.resultCount);
      }
      expect(span.endNs).toBeGreaterThanOrEqual(span.startNs);
    }

    // One AI SDK call per model call, under the run: invoke_agent → step → chat.
    const llmEnds = ofType(events, "llm-end").filter((e) => e.ok && !e.replayed);
    expect(llmEnds.length).toBe(4);
    const agents = spans.filter((s) => s.name.startsWith("invoke_agent "));
    expect(agents.map((s) => s.attributes["dossier.call_id"]).sort()).toEqual(
      llmEnds.map((e) => e.callId).sort(),
    );
    for (const end of llmEnds) {
      const agent = agents.find((s) => s.attributes["dossier.call_id"] === end.callId)!;
      expect(agent.name).toBe(`invoke_agent dossier.${end.role}`);
      expect(agent.parentSpanId).toBe(run.spanId);
      expect(agent.attributes).toMatchObject({
        "dossier.role": end.role,
        "dossier.run.id": result.runId,
        "gen_ai.request.model": "fake-model",
        "gen_ai.usage.input_tokens": end.inputTokens,
        "gen_ai.usage.output_tokens": end.outputTokens,
        "gen_ai.response.finish_reasons": ["stop"],
      });
      const steps = childrenOf(spans, agent);
      expect(steps.map((s) => s.name)).toEqual(["step 1"]);
      const chats = childrenOf(spans, steps[0]!);
      expect(chats.map((s) => s.name)).toEqual(["chat fake-model"]);
      expect(chats[0]!.attributes["gen_ai.usage.input_tokens"]).toBe(end.inputTokens);
    }

    // Nothing else, and nothing the user did not ask to share.
    expect(spans.length).toBe(1 + toolEnds.length + 3 * llmEnds.length);
    const text = JSON.stringify(spans, (_k, v) => (typeof v === "bigint" ? String(v) : v));
    expect(text).not.toContain(QUESTION);
    expect(text).not.toContain("2025 survey");
    expect(text).not.toContain("sk-test");
    expect(text).not.toContain(OTEL_KEY);
    expect(text).not.toContain(world!.web.url("/"));
    expect(text).not.toContain("127.0.0.1");
    for (const span of spans) {
      expect(
        Object.keys(span.attributes).filter((k) => /messages|instructions|input\.value/.test(k)),
      ).toEqual([]);
    }

    // The exporter's requests carried the header from OTEL_EXPORTER_OTLP_HEADERS, as OTLP/protobuf
    // (the default encoding).
    expect(receiver!.requests.length).toBeGreaterThan(0);
    for (const request of receiver!.requests) {
      expect(request.path).toBe("/v1/traces");
      expect(request.contentType).toBe("application/x-protobuf");
      expect(request.headers.authorization).toBe(`Bearer ${OTEL_KEY}`);
    }
  });

  it("record the question, prompts and answers only when content recording is on", async () => {
    const { spans } = await tracedRun(true);
    const run = spans.find((s) => s.name === "dossier.run")!;
    expect(run.attributes["dossier.question"]).toBe(QUESTION);
    const agents = spans.filter((s) => s.name.startsWith("invoke_agent "));
    expect(agents.length).toBe(4);
    for (const agent of agents) {
      expect(JSON.parse(String(agent.attributes["gen_ai.input.messages"]))[0].role).toBe("user");
      expect(JSON.parse(String(agent.attributes["gen_ai.output.messages"]))[0].role).toBe("assistant");
    }
    // The searcher's prompt holds the question.
    const searchers = agents.filter((s) => s.attributes["dossier.role"] === "searcher");
    expect(searchers.length).toBe(3);
    for (const agent of searchers)
      expect(String(agent.attributes["gen_ai.input.messages"])).toContain(QUESTION);
  });

  it("join a trace the caller has active (a library user's own span) as its child", async () => {
    receiver = await startOtlpReceiver();
    const settings = telemetrySettings(configSchema.parse({ telemetry: { enabled: true } }), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    })!;
    const userTracer = new TracerProvider().getTracer("user-app");
    const userSpan = userTracer.startSpan("handle request");
    // The user's context manager (a synchronous one: openRunTrace reads the active context at once).
    context.setGlobalContextManager(new StackContextManager().enable());
    let runTrace: ReturnType<typeof openRunTrace>;
    try {
      runTrace = context.with(trace.setSpan(context.active(), userSpan), () =>
        openRunTrace(settings, { runId: "r-1", strategy: "smtl", query: "q", resumed: false }),
      );
    } finally {
      context.disable();
    }
    runTrace.observe({ type: "tool-start", callId: "C1", tool: "web_search", args: { q: "secret query" } });
    runTrace.observe({
      type: "tool-end",
      callId: "C1",
      tool: "web_search",
      ok: true,
      cached: false,
      latencyMs: 3,
    });
    await runTrace.end();
    const run = receiver.spans.find((s) => s.name === "dossier.run")!;
    expect(run.traceId).toBe(userSpan.spanContext().traceId);
    expect(run.parentSpanId).toBe(userSpan.spanContext().spanId);
    const tool = receiver.spans.find((s) => s.name === "execute_tool web_search")!;
    expect(tool.parentSpanId).toBe(run.spanId);
    expect(JSON.stringify(tool.attributes)).not.toContain("secret query");
  });
});
