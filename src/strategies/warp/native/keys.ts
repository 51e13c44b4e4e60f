/**
 * Passage keys and citations of AgentCPM-Report's protocol. A passage reaches the model as
 * `bibkey:textidN` followed by its text, and the writer cites it as `\cite{textidN}` or
 * `\cite{textidN, textidM}`. The key of evidence `E7` is `textid7`, so a passage keeps one key
 * for the whole run (the seed's citation registry, whose counter runs over the passages shown;
 * ours runs over every passage recorded, so numbers may skip).
 */

/** The seed's citation pattern (`\cite`, `\citep`, `\citet`, … but not `\citestyle`). */
const CITE = /\\\w*cite(?!style)\w*\{(.+?)\}/g;
const KEY = /^textid(\d+)$/;

/** The passage key of an evidence id (`E7` → `textid7`). */
export function keyOfEvidence(id: string): string {
  return `textid${id.replace(/^E/i, "")}`;
}

/** The evidence id of a passage key (`textid7` → `E7`), or null for any other key. */
export function evidenceOfKey(key: string): string | null {
  const m = KEY.exec(key.trim());
  return m ? `E${Number(m[1])}` : null;
}

/** Every key cited in `text`, in order of first appearance (the seed's reference matcher). */
export function citedKeys(text: string): string[] {
  const keys: string[] = [];
  for (const m of text.matchAll(CITE))
    for (const raw of m[1]!.split(",")) {
      const key = raw.trim();
      if (key && key !== "*" && !/^#\d+$/.test(key) && !keys.includes(key)) keys.push(key);
    }
  return keys;
}

/** The number of `\cite` commands in `text` (the seed counts commands, not keys). */
export function citeCommands(text: string): number {
  return text.split("\\cite").length - 1;
}

/** `\cite{textid3, textid7}` → `[E3, E7]`; a key that is not a passage key is left out. */
export function citationsToEvidence(text: string): string {
  return text.replace(CITE, (_all, inner: string) => {
    const ids = inner
      .split(",")
      .map((k) => evidenceOfKey(k))
      .filter((id): id is string => id !== null);
    return ids.length ? `[${ids.join(", ")}]` : "";
  });
}

/** `[E3, E7]` → `\cite{textid3, textid7}`: the draft as the native model wrote it. */
export function evidenceToCitations(text: string): string {
  return text.replace(/\[\s*(E\d+(?:\s*,\s*E\d+)*)\s*\]/g, (_all, inner: string) => {
    const keys = inner.split(",").map((id) => keyOfEvidence(id.trim()));
    return `\\cite{${keys.join(", ")}}`;
  });
}
