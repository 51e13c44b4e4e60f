/**
 * AgentCPM-Report's protocol as codecs (`protocol: native`), so the released checkpoints run as
 * trained. Each action is one user message rebuilt from the state by its role prompt
 * (prompts.ts) — no system message, no chat history — sampled as the role's table says
 * (sampling.ts: temperature 0.7, top-p 0.8, at most 2,048 output tokens, unless the user set
 * them). The state shows the outline and draft as the released code renders them (render.ts):
 * the searcher's view shortened, the writer's whole around the cursor, the deepener's whole;
 * passages as `bibkey:textidN` blocks. A reply
 * is `<thought>…</thought>` and `<action>…</action>`, checked by format.ts; a WRITE's
 * `\cite{textidN}` keys become evidence citations for the report.
 */

import type { Evidence } from "../../../core/source.ts";
import { decoded, refused, type TextCodec } from "../../../kit/protocol/codec.ts";
import { NO_CALL_YET } from "../../../kit/research-done.ts";
import type { RunContext } from "../../../kit/run-context.ts";
import type { Role } from "../../../llm/model-spec.ts";
import type { RoleSampling } from "../../../llm/role-sampling.ts";
import { expandableSections, idOfPosition, positionOf } from "../draft.ts";
import type { DeepenAction, DeepenInput, InitializeAction, InitializeInput } from "../planner.ts";
import type { Thought } from "../policy.ts";
import { callSampling } from "../sampling.ts";
import type { SearchAction, SearchInput } from "../searcher.ts";
import type { WriteAction, WriteInput } from "../writer.ts";
import {
  type Checked,
  checkExtendPlan,
  checkInitPlan,
  checkSearch,
  checkWrite,
  parseTagged,
} from "./format.ts";
import { citationsToEvidence, keyOfEvidence } from "./keys.ts";
import { extendPlanPrompt, initPlanPrompt, type NativeIntros, searchPrompt, writePrompt } from "./prompts.ts";
import { instructionFor, renderPassages, renderSurvey } from "./render.ts";

/** The protocol's name on its codecs. */
export const AGENTCPM = "agentcpm";

/** A SEARCH in the native protocol; `noCallYet`: the prompt ends with the kit's NO_CALL_YET line. */
export type NativeSearchInput = SearchInput & { noCallYet?: boolean };

/** One action of the protocol: its role prompt, its check, and the action a checked reply is. */
interface TaggedAction<S, T, A> {
  role: Role;
  prompt(state: S): string;
  check(action: string | null, state: S): Checked<T>;
  act(value: T, thought: Thought, state: S): A;
}

function taggedCodec<S, T, A>(sampling: RoleSampling, spec: TaggedAction<S, T, A>): TextCodec<S, A> {
  return {
    kind: "text",
    name: AGENTCPM,
    request: (state) => ({
      role: spec.role,
      messages: [{ role: "user", content: spec.prompt(state) }],
      ...callSampling(sampling, spec.role),
    }),
    decode(reply, state) {
      const { thought, action } = parseTagged(reply);
      const checked = spec.check(action, state);
      if (!checked.ok) return refused(checked.error);
      return decoded(spec.act(checked.value, thought === null ? {} : { thought }, state));
    },
  };
}

/** The four codecs of the protocol for one run; `intros` replace the prompts' opening prose. */
export function agentcpmCodecs(
  ctx: Pick<RunContext, "query" | "currentDate">,
  sampling: RoleSampling,
  intros: NativeIntros = {},
) {
  const base = (language: string) => ({ query: ctx.query, date: ctx.currentDate, language });
  const information = (passages: readonly Evidence[]) => renderPassages(passages);
  const expandable = (state: DeepenInput["state"]) =>
    new Set(expandableSections(state).map((s) => positionOf(s.id)));

  const search = taggedCodec(sampling, {
    role: "searcher",
    prompt: ({ state, target, language, noCallYet }: NativeSearchInput) => {
      const prompt = searchPrompt({
        ...base(language),
        intro: intros.search,
        outline: renderSurvey(state.title, state.outline, { mode: "abbreviated" }),
        instruction: instructionFor(target?.id),
      });
      return noCallYet ? `${prompt}\n\n${NO_CALL_YET}` : prompt;
    },
    check: (action) => checkSearch(action),
    act: (value, thought): SearchAction & Thought => ({
      name: "search",
      keywords: [...new Set(value.keywords)],
      ...thought,
    }),
  });

  const initialize = taggedCodec(sampling, {
    role: "planner",
    prompt: ({ passages, language }: InitializeInput) =>
      initPlanPrompt({ ...base(language), intro: intros.initPlan, information: information(passages) }),
    check: (action, { language }) => checkInitPlan(action, language),
    act: (value, thought): InitializeAction & Thought => ({
      name: "initialize",
      title: value.title.trim(),
      sections: value.sections,
      ...thought,
      native: "init-plan",
    }),
  });

  const write = taggedCodec(sampling, {
    role: "writer",
    prompt: ({ state, target, passages, language }: WriteInput) =>
      writePrompt({
        ...base(language),
        intro: intros.write,
        survey: renderSurvey(state.title, state.outline, { mode: "local", cursor: target.id }),
        instruction: instructionFor(target.id),
        information: information(passages),
      }),
    check: (action, { passages, language }) =>
      checkWrite(action, { language, keys: new Set(passages.map((p) => keyOfEvidence(p.id))) }),
    act: (value, thought, { target }): WriteAction & Thought => ({
      name: "write",
      position: positionOf(target.id),
      content: citationsToEvidence(value.content),
      ...thought,
      raw: value.content,
    }),
  });

  const deepen = taggedCodec(sampling, {
    role: "planner",
    prompt: ({ state, language, forced }: DeepenInput) =>
      extendPlanPrompt({
        ...base(language),
        intro: intros.extendPlan,
        report: renderSurvey(state.title, state.outline, { mode: "full" }),
        forced,
      }),
    check: (action, { state, language, forced }) =>
      checkExtendPlan(action, { language, expandable: expandable(state), nop: !forced }),
    act: (value, thought): DeepenAction & Thought =>
      value.name === "nop"
        ? { name: "terminate", ...thought, native: "nop" }
        : {
            name: "expand",
            position: positionOf(idOfPosition(value.position)!),
            subsections: value.subsections,
            ...thought,
            native: "extend-plan",
          },
  });

  return { search, initialize, write, deepen };
}
