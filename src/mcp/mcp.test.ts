import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { type ResearchWorld, startResearchWorld } from "../../test/research/world.ts";
import { worldCliEnv } from "../../test/research/world-cli.ts";
import { type RunningServer, startServer } from "../server/listen.ts";
import { createProject, indexNotes, type Project } from "../server/test-fixtures.ts";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const main = join(repo, "src", "cli", "main.ts");

let project: Project | undefined;
let world: ResearchWorld | undefined;
let client: Client | undefined;
let server: RunningServer | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  await project?.close();
  await world?.close();
  client = server = project = world = undefined;
});

/** Spawns `dossier mcp` with only `env` (and the SDK's safe defaults) and connects a client. */
async function stdioClient(
  env: Record<string, string>,
  cwd: string,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main, "mcp"],
    env: { HOME: cwd, ...env },
    cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const c = new Client({ name: "dossier-test", version: "1.0.0" });
  await c.connect(transport);
  return { client: c, stderr: () => stderr };
}

type TextContent = { type: "text"; text: string };

describe("dossier mcp — stdio", () => {
  // One spawned server for both runs: a cold start loads the whole engine.
  it("lists the tools, runs deep_research offline and against the research world with progress, serves reports as resources", {
    timeout: 120_000,
  }, async () => {
    world = await startResearchWorld({ subtasks: 2 });
    await indexNotes(world.home, world.home);
    const spawned = await stdioClient(worldCliEnv(world), world.home);
    client = spawned.client;
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual([
      "ask",
      "deep_research",
      "fetch",
      "refresh_start",
      "research_cancel",
      "research_result",
      "research_review",
      "research_start",
      "research_status",
      "search",
    ]);
    const research = tools.tools.find((t) => t.name === "deep_research")!;
    expect(research.inputSchema.required).toEqual(["question"]);
    expect(research.execution).toEqual({ taskSupport: "optional" });
    for (const tool of tools.tools) expect(tool.outputSchema?.type, tool.name).toBe("object");

    // Offline over the indexed notes: no model call.
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      {
        name: "deep_research",
        arguments: {
          question: "How do heat pumps perform in cold climates?",
          strategy: "offline",
          corpus: "notes",
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 60_000 },
    );
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const content = result.content as (TextContent | { type: "resource_link"; uri: string })[];
    const markdown = (content[0] as TextContent).text;
    expect(markdown).toContain("heat-pumps.md");
    expect(markdown).toMatch(/\[1\]/);
    expect(content[1]).toMatchObject({
      type: "resource_link",
      uri: expect.stringMatching(/^dossier:\/\/runs\/.+\/report\.md$/),
    });
    expect(progress[0]!.message).toMatch(/^started \(offline; run \S+\)$/);
    // The report as structured content too (the client checked it against the output schema).
    const structured = result.structuredContent as { runId: string; markdown: string; references: unknown[] };
    expect(structured.markdown).toBe(markdown);
    expect(structured.references.length).toBeGreaterThan(0);
    expect(progress[0]!.message).toContain(structured.runId);
    // Progress beyond the start arrives; the very last notifications may race the result on a
    // loaded machine (the SDK client drops progress that lands after the result).
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.progress)).toEqual(
      [...progress.map((p) => p.progress)].sort((a, b) => a - b),
    );

    const uri = (content[1] as { uri: string }).uri;
    const resources = await client.listResources();
    expect(resources.resources.map((r) => r.uri)).toContain(uri);
    const read = await client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({ uri, mimeType: "text/markdown", text: markdown });
    const html = await client.readResource({ uri: uri.replace(/\.md$/, ".html") });
    expect((html.contents[0] as { text: string }).text).toContain("<!doctype html>");

    const search = await client.callTool({
      name: "search",
      arguments: { query: "defrost", provider: "local", corpus: "notes" },
    });
    expect((search.content as TextContent[])[0]!.text).toContain("heat-pumps.md");
    const unknown = await client.callTool({
      name: "search",
      arguments: { query: "defrost", provider: "local", corpus: "nope" },
    });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as TextContent[])[0]!.text).toContain("[NOT_FOUND]");

    // minddr against the loopback world: the model plans, searches, reads and writes.
    const messages: string[] = [];
    const world_ = await client.callTool(
      {
        name: "deep_research",
        arguments: { question: "How is topic adoption changing?", strategy: "minddr" },
      },
      undefined,
      { onprogress: (p) => messages.push(p.message ?? ""), timeout: 60_000 },
    );
    expect(world_.isError, JSON.stringify(world_.content)).toBeFalsy();
    const report = (world_.content as TextContent[])[0]!.text;
    expect(report).toMatch(/\[\d+\]/);
    expect(report).toContain(world.web.url("/page/"));
    expect(messages[0]).toMatch(/^started \(minddr; run \S+\)$/);
    expect(messages.length).toBeGreaterThan(1);
    expect(world.script.counts.planner).toBeGreaterThan(0);
    expect(spawned.stderr()).toBe("");
  });
});

describe("dossier serve — MCP over streamable HTTP", () => {
  it("needs the token, lists the tools, and cancels deep_research when the request is cancelled", async () => {
    project = await createProject();
    server = await startServer({ dossier: project.dossier, port: 0 });
    const url = new URL(`${server.url}/mcp`);
    const anonymous = new Client({ name: "anonymous", version: "1.0.0" });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow();

    client = new Client({ name: "dossier-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      }),
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("deep_research");

    const controller = new AbortController();
    const messages: string[] = [];
    const call = client.callTool(
      {
        name: "deep_research",
        arguments: { question: "Hold this run until it is cancelled", strategy: "hold", corpus: "notes" },
      },
      undefined,
      {
        signal: controller.signal,
        onprogress: (p) => {
          messages.push(p.message ?? "");
          if (messages.length === 2) controller.abort("enough");
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(messages[0]).toMatch(/^started \(hold; run \S+\)$/);
    const runId = await waitFor(async () => {
      const [newest] = await project!.dossier.runs.list();
      return newest?.status === "cancelled" && newest.id;
    });
    expect((await project.dossier.runs.get(runId)).status).toBe("cancelled");
  });
});

async function waitFor<T>(
  check: () => T | false | undefined | Promise<T | false | undefined>,
  ms = 5000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
