/**
 * `dossier research --option key=value`: any strategy option reaches the run (smtl's native
 * protocol here, answered by a model speaking its tags), and a bad one is refused before any
 * model call with nothing stored.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCliInProcess } from "../../../test/cli-io.ts";
import { type FakeOpenAI, type Reply, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { systemText, userText } from "../../../test/research/replies.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { worldCliEnv } from "../../../test/research/world-cli.ts";
import { NATIVE_MARKER } from "../../strategies/smtl/native-prompts.ts";

let world: ResearchWorld | undefined;
let model: FakeOpenAI | undefined;
afterEach(async () => {
  await model?.close();
  await world?.close();
  model = world = undefined;
});

const QUESTION = "Which topic grew by 11 percent in 2025?";
const PLAN = [
  "One goal: find the topic.",
  "<plan>",
  "## Goal 1: Identify the topic that grew by 11 percent",
  "- Path 1.1: search the growth figure",
  "- Success: a page names the topic",
  "</plan>",
].join("\n");
const toolCall = (name: string, args: Record<string, string>) =>
  `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/**
 * A model that speaks only smtl's native tags: a plan, one search, then an answer citing the
 * first listed page. A call whose system prompt is not the native one is answered with an error.
 */
function nativeModel(): Promise<FakeOpenAI> {
  let calls = 0;
  return startFakeOpenAI({
    handler: async (request): Promise<Reply> => {
      const body = request.body as Parameters<typeof systemText>[0];
      if (!systemText(body).includes(NATIVE_MARKER))
        return { kind: "error", status: 400, body: { error: { message: "not the native protocol" } } };
      calls++;
      if (calls === 1) return { kind: "text", text: PLAN };
      if (calls === 2) return { kind: "text", text: toolCall("web_search", { query: "topic 2 growth" }) };
      const url = /\]\((http[^)\s]+)\)/.exec(userText(body))?.[1] ?? "http://missing";
      return {
        kind: "text",
        text: `The goal is verified.\n<answer>Topic 2 [1]\n\nReferences:\n[1]. ${url} - Page</answer>`,
      };
    },
  });
}

function research(w: ResearchWorld, m: FakeOpenAI | null, args: string[]) {
  const env = { ...worldCliEnv(w), ...(m ? { DOSSIER_BASE_URL: m.url } : {}) };
  return runCliInProcess(["research", QUESTION, "--strategy", "smtl", ...args], { cwd: w.home, env });
}

describe("dossier research --option", () => {
  it("--option protocol=native reaches the strategy: every call speaks smtl's own tags and the run keeps the option", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    model = await nativeModel();
    const run = await research(world, model, [
      "--option",
      "protocol=native",
      "--option",
      "mode=answer",
      "--option",
      "topK=3",
      "--json",
      "--date",
      "2026-03-01",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.trim());
    expect(summary).toMatchObject({ strategy: "smtl", status: "completed", stopReason: "answered" });
    const chats = model.requests.filter((r) => r.path.endsWith("/chat/completions"));
    expect(chats).toHaveLength(3);
    for (const c of chats) expect(systemText(c.body as never)).toContain(NATIVE_MARKER);
    const show = await runCliInProcess(["runs", "show", summary.runId, "--json"], {
      cwd: world.home,
      env: worldCliEnv(world),
    });
    // Stored as the strategy read them: the three given (typed), its defaults for the rest.
    expect(JSON.parse(show.stdout).options.strategyOptions).toMatchObject({
      protocol: "native",
      mode: "answer",
      topK: 3,
      maxSteps: 100,
    });
  }, 60_000);

  it("refuses an unknown option or a bad value before any model call, storing no run", async () => {
    world = await startResearchWorld({ expectCalls: {} });
    const cases: [string[], string | RegExp][] = [
      [
        ["--option", "nosuch=1"],
        /^dossier: error \[INPUT_INVALID\]: strategy smtl: nosuch is not an option of the smtl strategy; its options are maxSteps, .*\bprotocol\b.*\bmode\b.* \(see dossier strategies\)$/,
      ],
      [
        ["--option", "maxSteps=abc"],
        'dossier: error [INPUT_INVALID]: strategy smtl: option maxSteps must be an integer from 1 to 1000, got "abc"',
      ],
      [
        ["--option", "protocol=xml"],
        'dossier: error [INPUT_INVALID]: strategy smtl: option protocol must be one of json, native, got "xml"',
      ],
      [
        ["--mode", "answer", "--option", "mode=research"],
        "dossier: error [INPUT_INVALID]: --mode and --option mode=… both set the strategy option mode: give one",
      ],
      [["--option", "protocol"], 'dossier: error [INPUT_INVALID]: --option takes key=value, got "protocol"'],
    ];
    for (const [args, message] of cases) {
      const run = await research(world, null, [...args, "--out", "report"]);
      expect(run.code, args.join(" ")).toBe(2);
      if (typeof message === "string") expect(run.stderr.trim()).toBe(message);
      else expect(run.stderr.trim()).toMatch(message);
    }
    expect(world.model.requests).toHaveLength(0);
    expect(world.search.requests).toHaveLength(0);
    expect(existsSync(join(world.home, "report.md"))).toBe(false);
    const list = await runCliInProcess(["runs", "list", "--json"], {
      cwd: world.home,
      env: worldCliEnv(world),
    });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 60_000);
});
