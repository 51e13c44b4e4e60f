/**
 * JSON as local models often get it wrong: a trailing comma, single quotes, Python's
 * `True`/`False`/`None`, a raw newline inside a string, sometimes all of it in a Markdown code
 * fence after a line of prose. The chaos option `malformJson` of the model script applies one
 * of these to a share of the JSON answers; the value meant stays recoverable.
 */

/** The defects, in the order a draw picks them. */
export const DEFECTS = ["trailing-comma", "single-quotes", "python-literals", "raw-newline"] as const;

/** One defect. */
export type Defect = (typeof DEFECTS)[number];

/** Writes valid JSON `text` with `defect` (and in a fence when `fence`); unchanged when the defect does not apply. */
export function malformJson(text: string, defect: Defect, fence: boolean): string {
  const broken = applyDefect(text, defect);
  return fence ? `Here is the JSON you asked for:\n\`\`\`json\n${broken}\n\`\`\`` : broken;
}

function applyDefect(text: string, defect: Defect): string {
  switch (defect) {
    case "trailing-comma":
      // A comma after the last member of every object and array that has one.
      return text.replace(/(["\d\]}el])(\s*)([}\]])/g, "$1,$2$3");
    case "single-quotes":
      // Only where no string holds a quote of either kind (the swap would change the value).
      return /'|\\"/.test(text) ? applyDefect(text, "trailing-comma") : text.replaceAll('"', "'");
    case "python-literals": {
      const python = text.replace(
        /([:[,]\s*)(true|false|null)(?=\s*[,}\]])/g,
        (_m, before: string, word: string) =>
          `${before}${word === "true" ? "True" : word === "false" ? "False" : "None"}`,
      );
      return python === text ? applyDefect(text, "trailing-comma") : python;
    }
    case "raw-newline": {
      // The first space inside a string value becomes a raw line break.
      const broken = text.replace(/(:\s*"[^"\\\n]*?) ([^"\\\n]*")/, "$1\n$2");
      return broken === text ? applyDefect(text, "trailing-comma") : broken;
    }
  }
}
