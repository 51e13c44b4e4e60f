/**
 * A scripted research model for end-to-end tests and benchmarks: an OpenAI-compatible handler
 * that recognises each agent by its instructions and answers the way a competent model would —
 * plans subtasks, reads the first search result, writes sub-reports, outlines and sections that
 * cite the evidence ids it was shown. Every call is counted per role; a call it does not
 * recognise is recorded as unexpected and answered with an error.
 */

import type { RecordedRequest, Reply } from "../fake-openai/types.ts";
import {
  criticAnswer,
  ephemeralAnswer,
  type GraphScriptOptions,
  innerStepAnswer,
  persistentAnswer,
  plannerAnswer,
  revisionAnswer,
  routerAnswer,
} from "./graph-answers.ts";

/** Roles the script recognises. */
export type ScriptRole =
  | "planner"
  | "search-step"
  | "sub-report"
  | "reader"
  | "outline"
  | "section"
  | "coherence"
  | "router"
  | "graph-planner"
  | "critic"
  | "revision"
  | "persistent-rubric"
  | "ephemeral-rubric"
  | "inner-step"
  | "consolidate";

/** Options of the script. */
export interface ModelScriptOptions extends GraphScriptOptions {
  /** Subtasks the planner proposes (3–8). Default 5. */
  subtasks?: number;
  /** Latency of every answer, in ms (applied inside the handler). Default 0. */
  latencyMs?: number;
  /** Section writers add an invented citation `[E999]`. */
  inventCitation?: boolean;
  /** Reader adds one excerpt that is not on the page. */
  paraphraseExcerpt?: boolean;
  /** Search steps read the first result before finishing. Default true. */
  readPages?: boolean;
  /** Called before each answer (e.g. to advance a test clock). */
  onCall?: (role: ScriptRole) => void;
  /** Overrides the answer for a role (return undefined to use the default). */
  override?: (role: ScriptRole, request: ChatBody) => Reply | undefined;
}

/** The chat-completions body the provider sends. */
export interface ChatBody {
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
}

/** What the script saw. */
export interface ModelScript {
  handler: (request: RecordedRequest) => Promise<Reply>;
  counts: Record<ScriptRole, number>;
  /** Highest number of answers in flight at once, per role. */
  maxInFlight: Record<ScriptRole, number>;
  /** System prompts seen, per role. */
  systems: Record<ScriptRole, string[]>;
  unexpected: string[];
}

const ROLE_MARKERS: [ScriptRole, string][] = [
  ["router", "router of a research system"],
  ["graph-planner", "research plan of a team as a directed acyclic graph"],
  ["critic", "critic of a research team"],
  ["revision", "Revise the rejected research actions"],
  ["persistent-rubric", "quality standard a research team works to"],
  ["ephemeral-rubric", "check the research state of a team"],
  ["inner-step", "subtask of a research plan"],
  ["consolidate", "consolidate research evidence without searching further"],
  ["planner", "planning agent of a research team"],
  ["search-step", "search agent working on one subtask"],
  ["sub-report", "findings of one research subtask"],
  ["reader", "read a single web page"],
  ["outline", "Design the outline"],
  ["section", "writing one section of a long research report"],
  ["coherence", "editor of a research report"],
];

function text(content: ChatBody["messages"][number]["content"]): string {
  return typeof content === "string" ? content : content.map((p) => p.text ?? "").join("");
}

const ids = (s: string) => [...new Set([...s.matchAll(/\[(E\d+)\]/g)].map((m) => m[1]!))];
const json = (value: unknown): Reply => ({ kind: "text", text: JSON.stringify(value) });

/** Creates the script. */
export function createModelScript(options: ModelScriptOptions = {}): ModelScript {
  const zero = () => Object.fromEntries(ROLE_MARKERS.map(([r]) => [r, 0])) as Record<ScriptRole, number>;
  const counts = zero();
  const maxInFlight = zero();
  const inFlight = zero();
  const systems = Object.fromEntries(ROLE_MARKERS.map(([r]) => [r, [] as string[]])) as Record<
    ScriptRole,
    string[]
  >;
  const unexpected: string[] = [];
  const n = options.subtasks ?? 5;

  const answer = (role: ScriptRole, user: string, body: ChatBody): Reply => {
    const custom = options.override?.(role, body);
    if (custom) return custom;
    switch (role) {
      case "router":
        return routerAnswer(user);
      case "graph-planner":
        return plannerAnswer(user, counts["graph-planner"], options);
      case "critic":
        return criticAnswer(user, options);
      case "revision":
        return revisionAnswer(user);
      case "persistent-rubric":
        return persistentAnswer();
      case "ephemeral-rubric":
        return ephemeralAnswer(counts["ephemeral-rubric"], options);
      case "inner-step":
        return innerStepAnswer(user, options, counts["inner-step"]);
      case "consolidate": {
        const found = ids(user).slice(0, 3);
        return {
          kind: "text",
          text: `The sources agree on the main figures ${found.map((id) => `[${id}]`).join(" ")}.`,
        };
      }
      case "planner": {
        const question = /<question>\n([\s\S]*?)\n<\/question>/.exec(user)?.[1]?.trim() ?? "the question";
        return json({
          intent: "Understand the question and cover its main aspects with evidence.",
          title: "Research report",
          subtasks: Array.from({ length: n }, (_, i) => ({
            title: `Aspect ${i + 1}`,
            goal: `Find evidence about aspect ${i + 1} of the question`,
            queries: [i === 0 ? question : `aspect ${i + 1} evidence`],
          })),
        });
      }
      case "search-step": {
        const urls = [...user.matchAll(/ — (https?:\/\/\S+)/g)].map((m) => m[1]!);
        const alreadyRead = user.includes("read_page");
        if ((options.readPages ?? true) && urls.length > 0 && !alreadyRead) {
          return json({
            thought: "Read the best result.",
            done: false,
            actions: [{ tool: "read_page", url: urls[0], goal: "key facts" }],
          });
        }
        return json({ thought: "The goal is covered.", done: true, actions: [] });
      }
      case "reader": {
        const page =
          /===== BEGIN UNTRUSTED PAGE TEXT \S+ =====\nTitle: .*\n\n([\s\S]*?)\n===== END/.exec(user)?.[1] ??
          "";
        const sentences = page.split(/(?<=\.)\s+/).filter((s) => s.length > 20);
        const evidence = sentences.slice(0, 2);
        if (options.paraphraseExcerpt) evidence.push("A sentence that the page never contained at all.");
        return json({
          rationale: "The page states relevant facts.",
          evidence,
          summary: sentences[0] ?? "Nothing relevant.",
        });
      }
      case "sub-report": {
        const found = ids(user).slice(0, 3);
        return {
          kind: "text",
          text: `The subtask found relevant facts ${found.map((id) => `[${id}]`).join(" ")}.`,
        };
      }
      case "outline": {
        const catalogue = ids(user);
        const sections = ["Background", "Findings", "Comparison", "Outlook"].map((title, i) => ({
          title,
          plan: `Explain the ${title.toLowerCase()} with the collected evidence`,
          evidence: catalogue.slice(i * 2, i * 2 + 3),
          subsections: [],
        }));
        return json({ title: "Research report on the question", sections });
      }
      case "section": {
        const evidence = [...user.matchAll(/\[(E\d+)\] \([^)]*\) ([^\n]+)/g)].slice(0, 3);
        const body = evidence.map(([, id, excerpt]) => `${excerpt!.replace(/…$/, "")} [${id}]`).join(" ");
        return { kind: "text", text: `${body}${options.inventCitation ? " An invented claim [E999]." : ""}` };
      }
      case "coherence": {
        const found = ids(user).slice(0, 2);
        return json({
          title: "Research report",
          introduction: `This report answers the question with the evidence gathered ${found.map((id) => `[${id}]`).join("")}.`,
          conclusion: "Taken together, the sections answer the question and show what remains open.",
        });
      }
    }
  };

  return {
    counts,
    maxInFlight,
    systems,
    unexpected,
    async handler(request) {
      const body = request.body as ChatBody;
      const system = body.messages
        .filter((m) => m.role === "system")
        .map((m) => text(m.content))
        .join("\n");
      const user = body.messages
        .filter((m) => m.role !== "system")
        .map((m) => text(m.content))
        .join("\n");
      const role = ROLE_MARKERS.find(([, marker]) => system.includes(marker))?.[0];
      if (!role) {
        unexpected.push(system.slice(0, 200));
        return {
          kind: "error",
          status: 400,
          body: { error: { message: "unexpected request", type: "invalid_request_error" } },
        };
      }
      counts[role]++;
      systems[role].push(system);
      options.onCall?.(role);
      inFlight[role]++;
      maxInFlight[role] = Math.max(maxInFlight[role], inFlight[role]);
      try {
        if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
        return answer(role, user, body);
      } finally {
        inFlight[role]--;
      }
    },
  };
}
