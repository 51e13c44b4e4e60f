/**
 * Encoding text in legacy single- and double-byte charsets (windows-1252, shift_jis, …) for
 * page fixtures. The platform has only decoders for them, so the encoder is their inverse,
 * built once per charset by decoding every one- and two-byte sequence.
 */

const encoders = new Map<string, Map<string, number[]>>();

function tableFor(charset: string): Map<string, number[]> {
  const known = encoders.get(charset);
  if (known) return known;
  const decoder = new TextDecoder(charset, { fatal: true });
  const table = new Map<string, number[]>();
  const learn = (bytes: number[]) => {
    try {
      const char = decoder.decode(new Uint8Array(bytes));
      if ([...char].length === 1 && !table.has(char)) table.set(char, bytes);
    } catch {
      // Not a valid sequence in this charset.
    }
  };
  for (let b = 0; b < 0x100; b++) learn([b]);
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) learn([lead, trail]);
  }
  encoders.set(charset, table);
  return table;
}

/** Encodes `text` in `charset`; throws on a character the charset cannot represent. */
export function encodeLegacy(text: string, charset: string): Uint8Array {
  const table = tableFor(charset);
  const out: number[] = [];
  for (const char of text) {
    const bytes = table.get(char);
    if (!bytes) throw new Error(`encodeLegacy: ${JSON.stringify(char)} cannot be encoded in ${charset}`);
    out.push(...bytes);
  }
  return new Uint8Array(out);
}
