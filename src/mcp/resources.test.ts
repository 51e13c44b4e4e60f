/**
 * Report resources over an in-memory MCP connection: a URI that names no report (an unknown
 * run, a bad format, a format the run did not write) is the caller's invalid parameter
 * (-32602); a failure on the server's side stays an internal error (-32603).
 */

import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createRunManager } from "../server/run-manager.ts";
import { createProject, type Project } from "../server/test-fixtures.ts";
import { reportUri } from "./resources.ts";
import { createMcpServer } from "./server.ts";

let project: Project | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await project?.close();
  client = project = undefined;
});

async function connect(p: Project): Promise<Client> {
  const server = createMcpServer({
    dossier: p.dossier,
    runs: createRunManager({ dossier: p.dossier, maxRuns: 1 }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const c = new Client({ name: "resources-test", version: "1.0.0" });
  await c.connect(clientSide);
  return c;
}

/** Runs offline research over the notes writing `formats`; returns the run id and report paths. */
async function offlineRun(p: Project, formats: ("md" | "html" | "json")[]) {
  const handle = p.dossier.research("How do heat pumps perform in cold climates?", {
    strategy: "offline",
    corpus: "notes",
    sources: "local",
    formats,
  });
  const result = await handle.done;
  expect(result.status).toBe("completed");
  return { runId: handle.runId, paths: result.paths };
}

async function readError(c: Client, uri: string): Promise<McpError> {
  const error = await c.readResource({ uri }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("report resources — error codes", () => {
  it("answers -32602 for an unknown run, a bad format and a format the run did not write", async () => {
    project = await createProject();
    const { runId } = await offlineRun(project, ["md"]);
    client = await connect(project);
    expect((await client.readResource({ uri: reportUri(runId) })).contents[0]).toMatchObject({
      mimeType: "text/markdown",
    });

    const unknown = await readError(client, reportUri("20990101-000000-nosuch"));
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('no run matches "20990101-000000-nosuch"');
    expect(unknown.data).toEqual({ code: "NOT_FOUND" });

    const format = await readError(client, `dossier://runs/${runId}/report.pdf`);
    expect(format.code).toBe(ErrorCode.InvalidParams);
    expect(format.message).toContain('unknown report format "pdf"');
    expect(format.data).toEqual({ code: "INPUT_INVALID" });

    const notWritten = await readError(client, reportUri(runId, "html"));
    expect(notWritten.code).toBe(ErrorCode.InvalidParams);
    expect(notWritten.data).toEqual({ code: "NOT_FOUND" });

    const noTemplate = await readError(client, "dossier://elsewhere/x");
    expect(noTemplate.code).toBe(ErrorCode.InvalidParams);
  });

  it("keeps -32603 for a failure on the server's side (a damaged report bundle)", async () => {
    project = await createProject();
    const { runId, paths } = await offlineRun(project, ["json"]);
    writeFileSync(paths[0]!, "{ not json");
    client = await connect(project);
    const damaged = await readError(client, reportUri(runId, "md"));
    expect(damaged.code).toBe(ErrorCode.InternalError);
  });
});
