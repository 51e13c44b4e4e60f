/**
 * An OTLP/HTTP trace receiver on loopback for telemetry tests: accepts the exporters' POSTs to
 * `/v1/traces` — OTLP/protobuf (`application/x-protobuf`, decoded by protobuf.ts) or OTLP/JSON
 * (`application/json`) — keeps each request's headers and decodes the spans into plain objects:
 * ids as hex, attributes as a record of their values. A body in any other encoding is answered
 * 415 and recorded as such, so a test sees it instead of losing spans silently.
 */

import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeOtlpProtobuf } from "./protobuf.ts";

/** One decoded span. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  startNs: bigint;
  endNs: bigint;
  /** The resource's attributes (`service.name`, …). */
  resource: Record<string, unknown>;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The base endpoint (as OTEL_EXPORTER_OTLP_ENDPOINT): spans are posted to `<endpoint>/v1/traces`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Each request's path, content type and headers. */
  requests: { path: string; contentType: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function decodeValue(v: OtlpValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, decodeValue(a.value)]));
}

/** Decodes one OTLP/JSON `ExportTraceServiceRequest`. */
export function decodeOtlpJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as {
    resourceSpans?: {
      resource?: { attributes?: { key: string; value: OtlpValue }[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          attributes?: { key: string; value: OtlpValue }[];
          status?: { code?: number; message?: string };
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
        }[];
      }[];
    }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          attributes: attributesOf(s.attributes),
          status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          resource,
        });
      }
    }
  }
  return spans;
}

/** Starts a receiver on 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver["requests"] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const contentType = String(req.headers["content-type"] ?? "");
      requests.push({ path: req.url ?? "", contentType, headers: req.headers });
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      if (contentType.startsWith("application/json")) spans.push(...decodeOtlpJson(body.toString("utf8")));
      else if (contentType.startsWith("application/x-protobuf")) spans.push(...decodeOtlpProtobuf(body));
      else {
        res.writeHead(415).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
