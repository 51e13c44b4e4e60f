/**
 * The protocol codecs of SMTL (tags and JSON, answer and research modes) and MaMs. The tag
 * protocol is its loop (tags.ts) and its decoding of a reply (native-format.ts, tags-decode.ts);
 * the JSON protocol is what both modes share (json-protocol.ts) and each mode's codec objects
 * (the line ranges: the system prompt of a call, its request and its decoding). Each module runs
 * against focused unit tests beside it (a scripted run context, no server).
 */

import type { MutationGroup } from "./module.ts";

const SMTL = "src/strategies/smtl";
const GOLDEN = `${SMTL}/golden-format.test.ts`;
const JSON_CODECS = [`${SMTL}/json-codecs.test.ts`, `${SMTL}/json-mode.test.ts`];
const SCHEMAS = [`${SMTL}/reply-schemas.test.ts`, `${SMTL}/answer-rules.test.ts`];

export const codecsSmtlMams: MutationGroup = {
  name: "codecs-smtl-mams",
  modules: [
    { file: `${SMTL}/tags.ts`, tests: [`${SMTL}/tag-loop.test.ts`], timeoutMs: 5000 },
    { file: `${SMTL}/tags-decode.ts`, tests: [`${SMTL}/native-replies.test.ts`, GOLDEN], timeoutMs: 5000 },
    {
      file: `${SMTL}/native-format.ts`,
      tests: [`${SMTL}/native-format.test.ts`, `${SMTL}/native-replies.test.ts`, GOLDEN],
      timeoutMs: 5000,
    },
    { file: `${SMTL}/protocol.ts`, tests: [`${SMTL}/protocol.test.ts`, ...SCHEMAS], timeoutMs: 5000 },
    { file: `${SMTL}/research-protocol.ts`, tests: SCHEMAS, timeoutMs: 5000 },
    {
      file: `${SMTL}/json-protocol.ts`,
      tests: JSON_CODECS,
      timeoutMs: 5000,
    },
    { file: `${SMTL}/json-answer.ts:47-92`, tests: JSON_CODECS, timeoutMs: 5000 },
    { file: `${SMTL}/json-research.ts:53-95`, tests: JSON_CODECS, timeoutMs: 5000 },
    {
      file: `${SMTL}/json-research-refine.ts:18-58`,
      tests: [...JSON_CODECS, `${SMTL}/reply-schemas.test.ts`],
      timeoutMs: 5000,
    },
    {
      file: "src/strategies/mams/protocol.ts",
      tests: ["src/strategies/mams/protocol.test.ts", "src/strategies/mams/reply-rules.test.ts"],
      timeoutMs: 5000,
    },
  ],
};
