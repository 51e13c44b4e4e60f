/**
 * Plan review on the run page. While a run started with "review the plan" awaits its answer
 * (`awaiting-review`), the plan it proposed is an editable list — items reworded, removed,
 * added and moved up or down (sub-items likewise under their item), every control a labelled
 * button or field — with Approve, Save edits & run and Reject, and the deadline after which
 * the run fails unanswered. The answer goes to `POST /v1/runs/{id}/plan`; the run page then
 * follows the run going on. Once answered, what the review did is shown from the run's
 * events. The plan's text comes from a model: it is only ever text here.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, type PlanReview, type ReviewPlan, type RunView } from "./api.ts";
import {
  addRow,
  childKindOf,
  type DraftSub,
  draftOf,
  draftProblems,
  editOf,
  editRow,
  isEdited,
  MAX_TITLE,
  moveRow,
  type PlanDraft,
  type RowAt,
  removeRow,
  retitle,
  timeLeft,
} from "./plan-draft.ts";
import { Row, singular } from "./plan-review-row.tsx";
import type { PlanReviewState } from "./run-state.ts";
import "./plan-review.css";

function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** Props of {@link PlanReviewPanel}. */
export interface PlanReviewPanelProps {
  runId: string;
  /** The answer was recorded: the run as the server now has it. */
  onAnswered(run: RunView): void;
}

/** The plan awaiting review, editable, with its answers. */
export function PlanReviewPanel(props: PlanReviewPanelProps) {
  const [review, setReview] = useState<PlanReview | null>(null);
  const [draft, setDraft] = useState<PlanDraft | null>(null);
  const [reason, setReason] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const focusNext = useRef<string | null>(null);
  const now = useNow();
  const path = `/v1/runs/${encodeURIComponent(props.runId)}/plan`;

  useEffect(() => {
    api<PlanReview>(path).then(
      (r) => {
        setReview(r);
        setDraft(draftOf(r.plan));
      },
      (e) => setError((e as Error).message),
    );
  }, [path]);
  // Keyboard focus follows the row a button moved, removed or added.
  useEffect(() => {
    const id = focusNext.current;
    if (!id) return;
    focusNext.current = null;
    const el = document.getElementById(id) as HTMLButtonElement | HTMLInputElement | null;
    if (el && !(el as HTMLButtonElement).disabled) el.focus();
    else document.getElementById("pr-add")?.focus();
  });

  if (!review || !draft) {
    return (
      <section aria-labelledby="review-h" class="plan-review" data-testid="plan-review">
        <h2 id="review-h">Review the plan</h2>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : (
          <p aria-busy="true">Loading the plan…</p>
        )}
      </section>
    );
  }

  const plan: ReviewPlan = review.plan;
  const noun = singular(plan.kind);
  const childNoun = singular(`${childKindOf(plan.limits)}s`);
  const edited = isEdited(draft, plan);
  const problems = edited ? draftProblems(draft, plan) : [];
  const change = (next: PlanDraft, focus?: string) => {
    focusNext.current = focus ?? null;
    setDraft(next);
  };
  const rowsOf = (parent?: number) =>
    parent === undefined ? draft.items : (draft.items[parent]?.children ?? []);
  const handlers = (at: RowAt) => {
    const list = rowsOf(at.child === undefined ? undefined : at.item);
    const index = at.child ?? at.item;
    const key = list[index]!.key;
    return {
      onEdit: (patch: Partial<Pick<DraftSub, "title" | "description">>) => change(editRow(draft, at, patch)),
      onMove: (delta: -1 | 1) => {
        // The moved row keeps focus; at either end its other button takes it.
        const to = index + delta;
        const edge = to === 0 || to === list.length - 1;
        const dir = delta < 0 ? "up" : "down";
        const other = delta < 0 ? "down" : "up";
        change(moveRow(draft, at, delta), `pr-${key}-${edge ? other : dir}`);
      },
      onRemove: () => {
        const after = list[index + 1] ?? list[index - 1];
        change(removeRow(draft, at), after ? `pr-${after.key}-title` : "pr-add");
      },
    };
  };

  const answer = async (body: unknown) => {
    setBusy(true);
    setError("");
    try {
      const answered = await api<{ run: RunView; review: PlanReview }>(path, { method: "POST", body });
      props.onAnswered(answered.run);
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 409
          ? `${e.message} Reload the page to see the run as it is now.`
          : (e as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };

  const deadline = new Date(review.deadline);
  return (
    <section aria-labelledby="review-h" class="plan-review" data-testid="plan-review">
      <h2 id="review-h">Review the plan</h2>
      <p>
        The run stopped after planning. Nothing is researched until you approve the plan (as it is, or edited)
        or reject it.
      </p>
      <p class="pr-deadline" data-testid="review-deadline">
        Answer by <time dateTime={review.deadline}>{deadline.toLocaleString()}</time> (
        {timeLeft(review.deadline, now)}); unanswered, the run then fails — it is never approved by itself.
      </p>
      {draft.title !== null && (
        <>
          <label for="pr-plan-title">Report title</label>
          <input
            id="pr-plan-title"
            type="text"
            value={draft.title}
            maxLength={MAX_TITLE}
            onInput={(e) => change(retitle(draft, e.currentTarget.value))}
          />
        </>
      )}
      <ol class="pr-items" aria-label={`${noun}s of the plan`}>
        {draft.items.map((item, i) => (
          <li key={item.key} data-item={item.id ?? ""}>
            <Row
              row={item}
              at={{ item: i }}
              noun={noun}
              count={draft.items.length}
              {...handlers({ item: i })}
            />
            {plan.limits.maxChildren > 0 && (
              <div class="pr-children">
                {item.children.length > 0 && (
                  <ol aria-label={`${childNoun}s of ${noun.toLowerCase()} ${i + 1}`}>
                    {item.children.map((c, j) => (
                      <li key={c.key} data-item={c.id ?? ""}>
                        <Row
                          row={c}
                          at={{ item: i, child: j }}
                          noun={childNoun}
                          count={item.children.length}
                          {...handlers({ item: i, child: j })}
                        />
                      </li>
                    ))}
                  </ol>
                )}
                <button
                  type="button"
                  class="quiet"
                  disabled={item.children.length >= plan.limits.maxChildren}
                  onClick={() => change(addRow(draft, i), `pr-new-${draft.next}-title`)}
                >
                  Add {childNoun.toLowerCase()} to {noun.toLowerCase()} {i + 1}
                </button>
              </div>
            )}
          </li>
        ))}
      </ol>
      <button
        type="button"
        class="secondary"
        id="pr-add"
        disabled={draft.items.length >= plan.limits.maxItems}
        onClick={() => change(addRow(draft), `pr-new-${draft.next}-title`)}
      >
        Add {noun.toLowerCase()}
      </button>
      <p class="hint">
        {plan.limits.minItems === plan.limits.maxItems
          ? `${plan.limits.minItems} ${plan.kind}.`
          : `${plan.limits.minItems}–${plan.limits.maxItems} ${plan.kind}.`}
      </p>
      {problems.length > 0 && (
        <ul class="error pr-problems" aria-live="polite">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <div class="row">
        <button
          type="button"
          disabled={busy || edited}
          aria-describedby={edited ? "pr-edited" : undefined}
          onClick={() => void answer({ action: "approve" })}
        >
          Approve
        </button>
        <button
          type="button"
          disabled={busy || !edited || problems.length > 0}
          onClick={() => void answer({ action: "edit", plan: editOf(draft, plan) })}
        >
          Save edits &amp; run
        </button>
        <button
          type="button"
          class="secondary"
          disabled={busy || !edited}
          onClick={() => change(draftOf(plan))}
        >
          Undo edits
        </button>
      </div>
      {edited && (
        <p class="hint" id="pr-edited">
          You changed the plan: run it with Save edits &amp; run, or Undo edits to approve it as proposed.
        </p>
      )}
      <div class="row pr-reject">
        <div>
          <label for="pr-reason">Reason to reject (optional)</label>
          <input
            id="pr-reason"
            type="text"
            maxLength={500}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        </div>
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() =>
            void answer({ action: "reject", ...(reason.trim() ? { reason: reason.trim() } : {}) })
          }
        >
          Reject
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

const ACTION_TEXT: Record<string, string> = {
  approve: "Plan approved as proposed",
  edit: "Plan edited and approved",
  reject: "Plan rejected",
  timeout: "Plan review timed out",
};

/** What an answered review did, from the run's events: the answer, the changes and the plan run. */
export function PlanReviewSummary(props: { review: PlanReviewState }) {
  const answer = props.review.answer;
  if (!answer) return null;
  const c = answer.changes;
  const changes = c
    ? [
        c.added.length ? `${c.added.length} added` : "",
        c.removed.length ? `${c.removed.length} removed` : "",
        c.reworded.length ? `${c.reworded.length} reworded` : "",
        c.reordered ? "reordered" : "",
      ].filter(Boolean)
    : [];
  return (
    <section aria-labelledby="reviewed-h" class="plan-review done" data-testid="plan-reviewed">
      <h2 id="reviewed-h">Plan review</h2>
      <p>
        <strong>{ACTION_TEXT[answer.action] ?? answer.action}</strong>{" "}
        <time dateTime={answer.at}>{new Date(answer.at).toLocaleString()}</time>
        {changes.length > 0 && <span> · {changes.join(", ")}</span>}
        {answer.reason && <span> · {answer.reason}</span>}
      </p>
      {answer.items && (
        <ol class="pr-run" data-testid="reviewed-plan" aria-label="The plan run">
          {answer.items.map((title, i) => (
            <li key={i}>{title}</li>
          ))}
        </ol>
      )}
    </section>
  );
}
