/**
 * Scripted answers of the follow-up writer (`ask --about`): a question names "topic N"; when a
 * passage shown mentions topic N the writer answers from it, citing its id; otherwise it says
 * the passages do not suffice and asks for one search that finds page N (the world's search
 * puts page k+1 first for a query whose first number is k).
 */

import type { Reply } from "../fake-openai/types.ts";

/** Answers one follow-up call. */
export function followUpAnswer(user: string): Reply {
  const question = /^Question: (.*)$/m.exec(user)?.[1] ?? "";
  const n = Number(/topic (\d+)/i.exec(question)?.[1] ?? "0");
  const passage = [...user.matchAll(/^\[(E\d+)\] \(.*?\) (.*)$/gm)].find((m) =>
    new RegExp(`\\btopic ${n}\\b`, "i").test(m[2]!),
  );
  const reply = passage
    ? { sufficient: true, answer: `Topic ${n} is covered by the evidence [${passage[1]}].`, searches: [] }
    : { sufficient: false, answer: "", searches: [`topic ${n - 1}`] };
  return { kind: "text", text: JSON.stringify(reply) };
}
