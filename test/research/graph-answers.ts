/**
 * Answers of the scripted research model for the graph strategy's agents: router, graph
 * planner, critic and revision, rubrics, inner search steps and evidence consolidation.
 */

import type { Reply } from "../fake-openai/types.ts";
import { json } from "./replies.ts";

/** A plan node as the planner prompt lists it. */
export interface ListedNode {
  id: string;
  type: string;
  depth: number;
  status: string;
  title: string;
  goal: string;
  deps: string[];
  sections: string[];
}

/** Parses the "Current plan" lines of a graph planner prompt. */
export function parsePlan(user: string): ListedNode[] {
  const nodes: ListedNode[] = [];
  for (const line of user.split("\n")) {
    const m = /^(T-\d+) \[(\w+), depth (\d+), (\w+)\] "([^"]*)" — ([^;]*)(.*)$/.exec(line);
    if (!m) continue;
    const rest = m[7] ?? "";
    nodes.push({
      id: m[1]!,
      type: m[2]!,
      depth: Number(m[3]),
      status: m[4]!,
      title: m[5]!,
      goal: m[6]!.trim(),
      deps: /deps: ([^;]*)/.exec(rest)?.[1]?.split(", ").filter(Boolean) ?? [],
      sections: /sections: ([^;]*)/.exec(rest)?.[1]?.split(", ").filter(Boolean) ?? [],
    });
  }
  return nodes;
}

/** A node as the planner proposes it. */
export function proposal(n: ListedNode) {
  return {
    id: n.id,
    type: n.type,
    title: n.title,
    goal: n.goal,
    deps: n.deps,
    depth: n.depth,
    ...(n.sections.length ? { sections: n.sections } : {}),
  };
}

/** Options of the graph answers. */
export interface GraphScriptOptions {
  /** Planner iterations that add search nodes before it keeps the plan. Default 0. */
  expandIterations?: number;
  /** The ephemeral rubric reports no gap from this cycle on (1-based); default never. */
  noGapsFromCycle?: number;
  /** The critic asks to revise these node ids every time. */
  criticRejects?: string[];
  /** Inner search steps keep asking for this many queries (to test caps). */
  innerQueries?: number;
  /** Inner search agents never finish by themselves. */
  innerNeverDone?: boolean;
}

/** The router's specification. */
export function routerAnswer(user: string): Reply {
  const question = /<question>\n([\s\S]*?)\n<\/question>/.exec(user)?.[1]?.trim() ?? "the question";
  return json({
    topic: question,
    objectives: ["Establish the current state", "Explain the drivers"],
    constraints: [],
    timeScope: { description: "the last two years" },
    requiredOutputs: [],
    broadQueries: [question, "topic 2 overview"],
    ambiguous: false,
    clarifyingQuestions: [],
    assumptions: ["global scope"],
  });
}

/** The graph planner's default answer: expand once, then run what is ready, then synthesize. */
export function plannerAnswer(user: string, call: number, options: GraphScriptOptions): Reply {
  const nodes = parsePlan(user);
  const toAssess =
    /Executed nodes to assess now: (.*)/
      .exec(user)?.[1]
      ?.split(", ")
      .filter((x) => x.startsWith("T-")) ?? [];
  const assessments = toAssess.map((nodeId) => ({ nodeId, verdict: "ADEQUATE", reason: "usable evidence" }));
  const max = Math.max(...nodes.map((n) => Number(n.id.slice(2))));
  const pending = nodes.filter((n) => n.status === "pending" && n.type !== "report");
  if (call <= (options.expandIterations ?? 0)) {
    const report = nodes.find((n) => n.type === "report")!;
    const a = {
      id: `T-${max + 1}`,
      type: "search",
      title: `Detail ${max + 1}`,
      goal: `topic ${max + 1} details`,
      deps: [],
      depth: 1,
      sections: ["1"],
    };
    const b = {
      id: `T-${max + 2}`,
      type: "search",
      title: `Detail ${max + 2}`,
      goal: `topic ${max + 2} details`,
      deps: [],
      depth: 1,
      sections: ["2"],
    };
    const c = {
      id: `T-${max + 3}`,
      type: "llm",
      title: "Cross-check",
      goal: "cross-check the details",
      deps: [a.id, b.id],
      depth: 2,
      sections: ["3"],
    };
    const others = nodes.filter((n) => n.type !== "report").map(proposal);
    const live = [
      ...nodes.filter((n) => n.type !== "report" && n.status !== "pruned").map((n) => n.id),
      a.id,
      b.id,
      c.id,
    ];
    return json({
      assessments,
      decision: {
        changePlan: true,
        reasons: ["uncovered-sections"],
        explanation: "sections need targeted evidence",
      },
      plan: [
        ...others,
        a,
        b,
        c,
        { ...proposal(report), deps: live, depth: Math.max(c.depth, ...others.map((n) => n.depth)) + 1 },
      ],
      actions: [a.id, b.id],
      synthesize: false,
    });
  }
  return json({
    assessments,
    decision: { changePlan: false, reasons: [], explanation: "the plan still fits" },
    plan: nodes.map(proposal),
    actions: pending.map((n) => n.id),
    synthesize: pending.length === 0,
  });
}

/** The critic: approves, except node ids it is told to reject. */
export function criticAnswer(user: string, options: GraphScriptOptions): Reply {
  const planned = user.slice(user.indexOf("Planned actions:"));
  const ids = [...planned.matchAll(/^(T-\d+) \[/gm)].map((m) => m[1]!);
  return json({
    verdicts: ids.map((nodeId) =>
      options.criticRejects?.includes(nodeId)
        ? { nodeId, verdict: "revise", feedback: "too vague: name the metric and the period" }
        : { nodeId, verdict: "approve", feedback: "specific and useful" },
    ),
  });
}

/** The revision: sharpens each rejected goal. */
export function revisionAnswer(user: string): Reply {
  const rejected = user.slice(user.indexOf("Rejected actions"));
  const ids = [...rejected.matchAll(/^(T-\d+) \[/gm)].map((m) => m[1]!);
  return json({
    revisions: ids.map((nodeId) => ({
      nodeId,
      title: `Revised ${nodeId}`,
      goal: `revised goal of ${nodeId} with metric and period`,
    })),
  });
}

/** The persistent rubric's criteria, as INITPLAN writes them. */
export function persistentItems() {
  return ["Coverage", "Consistency", "Depth", "Support"].map((name) => ({
    name: `PERSISTENT-${name}`,
    description: `${name} of the report`,
    guidance: `Check the ${name.toLowerCase()} of every section against the outline`,
  }));
}

/** The ephemeral rubric at cycle `cycle` (1-based). */
export function ephemeralAnswer(cycle: number, options: GraphScriptOptions): Reply {
  const done = options.noGapsFromCycle !== undefined && cycle >= options.noGapsFromCycle;
  return json(
    done
      ? { gaps: [], noFurtherRetrieval: true }
      : {
          gaps: [
            {
              type: "coverage-gap",
              sections: ["2"],
              description: "EPHEMERAL-GAP section 2 lacks figures",
              action: "search for figures",
            },
            {
              type: "shallow-depth",
              sections: ["4"],
              description: "EPHEMERAL-GAP section 4 has only general statements",
              action: "search for forecasts with their authors",
            },
          ],
          noFurtherRetrieval: false,
        },
  );
}

/** The subtask an inner search prompt is about: its goal. */
function subtaskGoal(user: string): string {
  return /^Subtask T-\d+: .*? — (.*)$/m.exec(user)?.[1]?.trim() ?? "the subtask";
}

/**
 * An inner search step. Round 1 writes the search rubric and searches the subtask's goal;
 * round 2 reads the first result and finishes (or finishes at once when nothing was found).
 * With `innerQueries` it keeps asking for that many new queries every round.
 */
export function innerStepAnswer(user: string, options: GraphScriptOptions, call: number): Reply {
  const round = Number(/^Plan round (\d+) of/m.exec(user)?.[1] ?? "1");
  const rubric =
    round === 1
      ? {
          rubric: [
            { name: "relevance", guidance: "keep results about the subtask only" },
            { name: "specificity", guidance: "prefer figures and dates" },
            { name: "reliability", guidance: "prefer primary sources" },
          ],
        }
      : {};
  if (options.innerQueries) {
    return json({
      ...rubric,
      state: "more figures needed",
      goal: "keep searching",
      queries: Array.from(
        { length: options.innerQueries },
        (_, i) => `call ${call} round ${round} query ${i + 1}`,
      ),
      read: [],
      done: false,
    });
  }
  if (round === 1)
    return json({
      ...rubric,
      state: "nothing yet",
      goal: "survey the subtask",
      queries: [subtaskGoal(user)],
      read: [],
      done: false,
    });
  const urls = [...user.matchAll(/ — (https?:\/\/\S+)/g)].map((m) => m[1]!);
  const read = user.includes("read_page");
  if (!read && urls.length > 0)
    return json({
      state: "the first result looks relevant",
      goal: "read it",
      queries: [],
      read: [urls[0]],
      done: !options.innerNeverDone,
    });
  return json({ state: "covered", goal: "finish", queries: [], read: [], done: !options.innerNeverDone });
}

/** Level-1 sections of the "Fixed outline" block of a planner prompt. */
export function parseLevelOne(user: string): { id: string; title: string }[] {
  const block = user.slice(user.indexOf("Fixed outline:"));
  return [...block.matchAll(/^(\d+) ([^—\n]+?)(?: — .*)?$/gm)].map((m) => ({
    id: m[1]!,
    title: m[2]!.trim(),
  }));
}

/**
 * INITPLAN: the persistent rubric, one search node per two level-1 sections, an llm node
 * cross-checking them, and the searches as the first actions.
 */
export function initPlanAnswer(user: string): Reply {
  const sections = parseLevelOne(user);
  let next = Math.max(0, ...parsePlan(user).map((n) => Number(n.id.slice(2)))) + 1;
  const searches = [];
  for (let i = 0; i < sections.length; i += 2) {
    const pair = sections.slice(i, i + 2);
    searches.push({
      id: `T-${next++}`,
      type: "search",
      title: `Evidence for ${pair.map((p) => p.title).join(" and ")}`,
      goal: `topic ${next} ${pair.map((p) => p.title.toLowerCase()).join(" and ")} figures`,
      deps: [],
      depth: 2,
      sections: pair.map((p) => p.id),
    });
  }
  const check = {
    id: `T-${next}`,
    type: "llm",
    title: "Cross-check the figures",
    goal: "cross-check the figures the searches found",
    deps: searches.map((n) => n.id),
    depth: 3,
    sections: sections.map((p) => p.id),
  };
  return json({
    rubric: persistentItems(),
    rationale: "one search per two sections, then a cross-check",
    nodes: [...searches, check],
    actions: searches.map((n) => n.id),
  });
}

/**
 * Calls of a default graph run of the script: two broad searches (direct tool calls, each
 * reading one page), the outline of four sections, INITPLAN (rubric, two search nodes, one llm
 * node, the searches run first), two planner turns (run the cross-check, synthesize), each
 * search node planning two rounds and reading one page.
 */
export const DEFAULT_GRAPH_CALLS = {
  router: 1,
  outline: 1,
  "init-plan": 1,
  "graph-planner": 2,
  critic: 2,
  "inner-step": 4,
  reader: 4,
  "sub-report": 2,
  consolidate: 1,
  "ephemeral-rubric": 2,
  section: 4,
  coherence: 1,
} as const;

/**
 * Calls of the default graph run when it stops after its first cycle (INITPLAN's two searches):
 * no planner turn, one gate, one gap check, no cross-check.
 */
export const ONE_CYCLE_GRAPH_CALLS = {
  ...DEFAULT_GRAPH_CALLS,
  "graph-planner": 0,
  critic: 1,
  consolidate: 0,
  "ephemeral-rubric": 1,
} as const;

/**
 * Calls of the default graph run when every search fails (HTTP 500): nothing is read, summarised,
 * consolidated or written; the frame may be asked alongside the (empty) sections.
 */
export const SEARCH_FAILING_GRAPH_CALLS = {
  ...DEFAULT_GRAPH_CALLS,
  reader: 0,
  "sub-report": 0,
  consolidate: 0,
  section: 0,
  coherence: [0, 1],
} as const;
