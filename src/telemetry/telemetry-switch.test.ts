/**
 * Telemetry is off unless switched on: a library user's run in a fresh process, with an OTLP
 * endpoint in the environment but no `DOSSIER_OTEL`, exports nothing and loads no OpenTelemetry
 * module; the same run with `DOSSIER_OTEL=1` exports its spans to the endpoint (and the check
 * sees the modules load). A switched-on telemetry with a bad endpoint is refused before the run.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../../test/fake-otlp/index.ts";
import { configSchema } from "../runtime/config.ts";
import { telemetrySettings } from "./settings.ts";

/** Packages of OpenTelemetry: none may load while telemetry is off. */
const OTEL = /^(@opentelemetry\/|@ai-sdk\/otel$)/;

const entry = fileURLToPath(new URL("../index.ts", import.meta.url));

/**
 * Runs an offline research over a small folder with `createDossier({ cwd, env })` in a fresh
 * Node process (asynchronously: the receiver answers in this one) and lists the packages it
 * loaded.
 */
function runInChild(
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: string; packages: string[] }> {
  const hook = `data:text/javascript,${encodeURIComponent(`
    import { registerHooks } from "node:module";
    const seen = new Set();
    registerHooks({ resolve(s, c, next) { const r = next(s, c); const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(r.url); if (m) seen.add(m[1]); return r; } });
    globalThis.__packages = seen;
  `)}`;
  const script = `
    const { createDossier } = await import(${JSON.stringify(entry)});
    const dossier = createDossier({ cwd: ${JSON.stringify(cwd)}, env: ${JSON.stringify(env)} });
    const result = await dossier.research("How do heat pumps perform?", { docs: "notes" }).done;
    await dossier.close();
    process.stdout.write(JSON.stringify({ status: result.status, packages: [...globalThis.__packages] }));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", hook, "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as { status: string; packages: string[] });
    });
  });
}

describe("the telemetry switch", () => {
  let receiver: OtlpReceiver | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const folder = () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "dossier-otel-")));
    dirs.push(cwd);
    mkdirSync(join(cwd, "notes"));
    writeFileSync(
      join(cwd, "notes", "a.md"),
      "# Heat pumps\n\nHeat pumps kept a COP above 2 at minus 15 degrees.\n",
    );
    return cwd;
  };

  it("off: an endpoint alone exports nothing and loads no OpenTelemetry module", async () => {
    receiver = await startOtlpReceiver();
    const { status, packages } = await runInChild(folder(), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    });
    expect(status).toBe("completed");
    expect(packages).toContain("zod");
    expect(packages.filter((p) => OTEL.test(p))).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });

  it("on: DOSSIER_OTEL=1 exports the run's spans to the endpoint (here as OTLP/JSON)", async () => {
    receiver = await startOtlpReceiver();
    const { status, packages } = await runInChild(folder(), {
      DOSSIER_OTEL: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "dossier-test",
    });
    expect(status).toBe("completed");
    expect(receiver.requests.map((r) => r.contentType)).toEqual(
      receiver.requests.map(() => "application/json"),
    );
    expect(packages).toEqual(expect.arrayContaining(["@opentelemetry/sdk-trace", "@ai-sdk/otel"]));
    const run = receiver.spans.find((s) => s.name === "dossier.run");
    expect(run?.attributes).toMatchObject({
      "dossier.strategy": "offline",
      "dossier.run.status": "completed",
    });
    expect(run?.resource["service.name"]).toBe("dossier-test");
    const tools = receiver.spans.filter((s) => s.name.startsWith("execute_tool "));
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool.parentSpanId).toBe(run?.spanId);
  });
});

describe("telemetry settings", () => {
  const on = configSchema.parse({ telemetry: { enabled: true } });

  it("are null when telemetry is off, whatever the OTLP variables say", () => {
    expect(telemetrySettings(configSchema.parse({}), { OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318" })).toBe(
      null,
    );
    expect(telemetrySettings(on, { OTEL_SDK_DISABLED: "true" })).toBe(null);
  });

  it("take the standard endpoint variables first, then the configuration, then the local default", () => {
    expect(telemetrySettings(on, {})?.tracesUrl).toBe("http://localhost:4318/v1/traces");
    const configured = configSchema.parse({
      telemetry: { enabled: true, endpoint: "https://otel.example/api/" },
    });
    expect(telemetrySettings(configured, {})?.tracesUrl).toBe("https://otel.example/api/v1/traces");
    expect(
      telemetrySettings(configured, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://cloud.langfuse.com/api/public/otel",
      })?.tracesUrl,
    ).toBe("https://cloud.langfuse.com/api/public/otel/v1/traces");
    expect(
      telemetrySettings(configured, {
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://a.example",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://b.example/traces",
      })?.tracesUrl,
    ).toBe("https://b.example/traces");
    expect(
      telemetrySettings(on, { OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=k%3D1, Langsmith-Project=research" })
        ?.headers,
    ).toEqual({ "x-api-key": "k=1", "langsmith-project": "research" });
    expect(telemetrySettings(on, {})?.protocol).toBe("http/protobuf");
    expect(telemetrySettings(on, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })?.protocol).toBe("http/json");
    expect(
      telemetrySettings(on, {
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      })?.protocol,
    ).toBe("http/protobuf");
  });

  it("refuse an endpoint with credentials or bad headers, naming the variable and not the value", () => {
    const refused = (env: Record<string, string>) => {
      try {
        telemetrySettings(on, env);
      } catch (error) {
        return error as { code: string; message: string };
      }
      throw new Error("accepted");
    };
    const credentials = refused({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:s3cret@otel.example" });
    expect(credentials.code).toBe("CONFIG_INVALID");
    expect(credentials.message).toMatch(/^OTEL_EXPORTER_OTLP_ENDPOINT: credentials/);
    expect(credentials.message).not.toContain("s3cret");
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4317" }).code).toBe("CONFIG_INVALID");
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }).message).toMatch(
      /^OTEL_EXPORTER_OTLP_PROTOCOL: expected http\/protobuf or http\/json \(gRPC is not supported\)/,
    );
    const headers = refused({ OTEL_EXPORTER_OTLP_HEADERS: "secret-without-key" });
    expect(headers.message).toMatch(/^OTEL_EXPORTER_OTLP_HEADERS:/);
    expect(headers.message).not.toContain("secret-without-key");
  });
});
