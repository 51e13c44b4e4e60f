/**
 * Getting a JSON value out of what a model wrote: reasoning blocks, code fences and prose
 * around the JSON are tolerated.
 */

/** Removes `<think>…</think>` (and `<thinking>`, `<reasoning>`) blocks, including an unclosed leading one. */
export function stripReasoning(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, "");
  // A block opened but never closed swallows everything after it; a close with no open
  // (some servers drop the opening tag) means everything before it was reasoning.
  out = out.replace(/<(think|thinking|reasoning)>[\s\S]*$/i, "");
  const orphanClose = out.search(/<\/(think|thinking|reasoning)>/i);
  if (orphanClose >= 0) out = out.slice(out.indexOf(">", orphanClose) + 1);
  return out.trim();
}

/** The contents of the first fenced code block, if the text has one. */
export function fencedContent(text: string): string | undefined {
  const m = /```[ \t]*[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  return m ? m[1]!.trim() : undefined;
}

/**
 * Finds the first complete JSON object or array in `text` by bracket matching (aware of
 * strings and escapes) and returns its source, or undefined.
 */
export function firstJsonSpan(text: string): string | undefined {
  for (let start = 0; start < text.length; start++) {
    const c = text[start];
    if (c !== "{" && c !== "[") continue;
    const end = matchBracket(text, start);
    if (end < 0) continue;
    const candidate = text.slice(start, end + 1);
    try {
      JSON.parse(candidate);
      return candidate;
    } catch {
      // Not JSON (e.g. "[E3]" in prose); keep scanning.
    }
  }
  return undefined;
}

function matchBracket(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "{" || c === "[") stack.push(c === "{" ? "}" : "]");
    else if (c === "}" || c === "]") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** Outcome of {@link extractJson}. */
export type ExtractResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Extracts the first JSON value a model produced: strips reasoning blocks, prefers a fenced
 * block, then the whole text, then the first balanced object/array in it.
 */
export function extractJson(raw: string): ExtractResult {
  const text = stripReasoning(raw);
  if (!text) return { ok: false, error: "the answer is empty (after removing reasoning blocks)" };
  const candidates = [fencedContent(text), text].filter((x): x is string => x !== undefined);
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      const span = firstJsonSpan(candidate);
      if (span !== undefined) return { ok: true, value: JSON.parse(span) };
    }
  }
  return { ok: false, error: "no JSON object or array found in the answer" };
}
