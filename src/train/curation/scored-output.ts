/**
 * An output of the policy for one input and its reward: what preference data (DPO pairs) and
 * Self-SFT selection are made from (MindDR §5.4: the model's own samples, scored).
 */

/** One scored output. */
export interface ScoredOutput<T> {
  /** The input it answers (e.g. the question row's id). */
  input: string;
  output: T;
  reward: number;
}

/** Groups outputs by input, in the order inputs first appear, keeping each input's output order. */
export function byInput<T>(outputs: readonly ScoredOutput<T>[]): Map<string, ScoredOutput<T>[]> {
  const groups = new Map<string, ScoredOutput<T>[]>();
  for (const o of outputs) {
    const group = groups.get(o.input);
    if (group) group.push(o);
    else groups.set(o.input, [o]);
  }
  return groups;
}

/** Outputs from the highest reward to the lowest; equal rewards keep their order. */
export function byRewardDescending<T>(outputs: readonly ScoredOutput<T>[]): ScoredOutput<T>[] {
  return [...outputs].sort((a, b) => b.reward - a.reward);
}
