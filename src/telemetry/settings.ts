/**
 * Whether and where a run sends OpenTelemetry spans. Off unless switched on (`DOSSIER_OTEL=1` or
 * `telemetry.enabled` in the configuration); then spans go over OTLP/HTTP to the standard
 * endpoint variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, or `OTEL_EXPORTER_OTLP_ENDPOINT`
 * + `/v1/traces`), else to `telemetry.endpoint` + `/v1/traces`, else to a local collector on
 * `http://localhost:4318`. Headers (a Langfuse or LangSmith key) come from
 * `OTEL_EXPORTER_OTLP_TRACES_HEADERS` or `OTEL_EXPORTER_OTLP_HEADERS` only, never from the
 * configuration file. The encoding is protobuf, as the OTLP specification's default, unless
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL` says `http/json`. This
 * module loads no OpenTelemetry code; run-trace.ts does, when a run with telemetry starts.
 */

import { DossierError } from "../core/errors.ts";
import type { Config } from "../runtime/config.ts";

/** Where a run's spans go, resolved from the configuration and the environment. */
export interface TelemetrySettings {
  /** The OTLP/HTTP traces URL the spans are posted to. */
  tracesUrl: string;
  /** Headers sent with every export (keys stay out of the configuration file). */
  headers: Record<string, string>;
  /** Also record the question, prompts and model answers (off: lengths and counts only). */
  recordContent: boolean;
  /** The `service.name` resource attribute (`OTEL_SERVICE_NAME`, default `dossier`). */
  serviceName: string;
  /** The OTLP/HTTP encoding: protobuf (the OTLP default) or JSON. */
  protocol: OtlpProtocol;
}

/** The OTLP/HTTP encodings Dossier can send (gRPC is not supported). */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const;
/** An OTLP/HTTP encoding. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The collector OpenTelemetry's exporters use when none is given. */
export const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";

/**
 * The run's telemetry settings, or null when telemetry is off. A switched-on telemetry whose
 * endpoint is not an http(s) URL, or carries credentials (`user:password@`), or whose headers
 * do not parse, is a CONFIG_INVALID error naming the variable.
 */
export function telemetrySettings(
  config: Pick<Config, "telemetry">,
  env: Record<string, string | undefined>,
): TelemetrySettings | null {
  const telemetry = config.telemetry;
  if (!telemetry?.enabled) return null;
  if (/^(1|true|yes|on)$/i.test(env.OTEL_SDK_DISABLED?.trim() ?? "")) return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const [name, url] = traces
    ? ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces]
    : base
      ? ["OTEL_EXPORTER_OTLP_ENDPOINT", withTracesPath(base)]
      : telemetry.endpoint
        ? ["telemetry.endpoint", withTracesPath(telemetry.endpoint)]
        : ["the default endpoint", withTracesPath(DEFAULT_OTLP_ENDPOINT)];
  checkUrl(name, url);
  const headersVar = env.OTEL_EXPORTER_OTLP_TRACES_HEADERS?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
    : "OTEL_EXPORTER_OTLP_HEADERS";
  const protocolVar = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = env[protocolVar]?.trim() || "http/protobuf";
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new DossierError(
      "CONFIG_INVALID",
      `${protocolVar}: expected ${OTLP_PROTOCOLS.join(" or ")} (gRPC is not supported), got ${JSON.stringify(protocol.slice(0, 40))}`,
    );
  }
  return {
    protocol: protocol as OtlpProtocol,
    tracesUrl: url,
    headers: parseHeaders(headersVar, env[headersVar] ?? ""),
    recordContent: telemetry.recordContent === true,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "dossier",
  };
}

/** `<endpoint>/v1/traces`, as the OTLP specification builds a signal's URL from a base. */
function withTracesPath(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

function checkUrl(name: string, value: string): void {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new DossierError("CONFIG_INVALID", `${name}: expected an http(s) URL of an OTLP/HTTP collector`);
  }
  if (url.username || url.password) {
    throw new DossierError(
      "CONFIG_INVALID",
      `${name}: credentials in the URL (user:password@) are not accepted; send them as a header with OTEL_EXPORTER_OTLP_HEADERS`,
    );
  }
}

/**
 * The OTLP header list `key=value,key2=value2` (values URL-encoded, as the specification says).
 * The error names the variable, never its value (it usually holds a key).
 */
export function parseHeaders(name: string, value: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const part of value.split(",")) {
    if (!part.trim()) continue;
    const at = part.indexOf("=");
    const key = at > 0 ? part.slice(0, at).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(key)) {
      throw new DossierError("CONFIG_INVALID", `${name}: expected key=value pairs separated by commas`);
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      throw new DossierError("CONFIG_INVALID", `${name}: a header value is not valid URL encoding`);
    }
    headers[key.toLowerCase()] = decoded;
  }
  return headers;
}
