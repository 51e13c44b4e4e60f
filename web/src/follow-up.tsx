/**
 * The follow-up box under a finished run's report: a question about the run, asked with
 * `POST /v1/ask` (`about` the run); while it is answered, the follow-up's own run (found among
 * the runs, followed over its event stream) shows its phase and searches; then the answer with
 * its citations (the report's numbers, linked to its References, new sources to their
 * address) and the searches it made. Earlier follow-ups are listed as the child runs they are.
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { api, type RunView } from "./api.ts";
import {
  answerPieces,
  citationHref,
  type FollowUpAnswer,
  type FollowUpCitation,
  followUpsOf,
  httpUrl,
} from "./follow-up-logic.ts";
import { Link } from "./router.tsx";
import type { RunEvent } from "./run-state.ts";
import { followRun } from "./sse.ts";
import "./follow-up.css";

/** The follow-up's run while it is answered: its id once listed, its phase and searches. */
interface Progress {
  childId: string | null;
  phase: string;
  searches: string[];
}

const runsPath = "/v1/runs?limit=50";

/** The runs listed now that are follow-ups of `runId`. */
async function listFollowUps(runId: string): Promise<RunView[]> {
  const { runs } = await api<{ runs: RunView[] }>(runsPath);
  return followUpsOf(runs, runId);
}

/** The follow-up box of the finished run `runId`; `reportNumbers` are its report's reference numbers. */
export function FollowUp(props: { runId: string; reportNumbers: ReadonlySet<number> }) {
  const [question, setQuestion] = useState("");
  const [asking, setAsking] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [answer, setAnswer] = useState<FollowUpAnswer | null>(null);
  const [error, setError] = useState("");
  const [earlier, setEarlier] = useState<RunView[]>([]);
  const stop = useRef<AbortController | null>(null);

  useEffect(() => {
    listFollowUps(props.runId).then(setEarlier, () => {});
    return () => stop.current?.abort();
  }, [props.runId]);

  /** Finds the follow-up's run once it is listed and follows its events. */
  const watch = (known: ReadonlySet<string>, signal: AbortSignal) => {
    const look = async () => {
      while (!signal.aborted) {
        const child = (await listFollowUps(props.runId).catch(() => [])).find((r) => !known.has(r.id));
        if (child) return child.id;
        await new Promise((r) => setTimeout(r, 300));
      }
      return null;
    };
    void look().then((childId) => {
      if (!childId || signal.aborted) return;
      setProgress((p) => ({ phase: p?.phase ?? "", searches: p?.searches ?? [], childId }));
      // A reconnect resumes after the last event seen: no search is listed twice.
      let seq = 0;
      void followRun({
        runId: childId,
        lastSeq: () => seq,
        onEvent: (event: RunEvent) => {
          if (event.seq <= seq) return;
          seq = event.seq;
          const e = event as RunEvent & { phase?: string; tool?: string; args?: { query?: unknown } };
          if (e.type === "phase" && typeof e.phase === "string") {
            const phase = e.phase;
            setProgress((p) => p && { ...p, phase });
          }
          if (e.type === "tool-start" && /search/.test(e.tool ?? "")) {
            const query = typeof e.args?.query === "string" ? e.args.query : "";
            setProgress((p) => p && { ...p, searches: [...p.searches, query] });
          }
        },
        stillLive: async () => false,
        onConnection: () => {},
        signal,
      }).catch(() => {});
    });
  };

  const ask = async (e: Event) => {
    e.preventDefault();
    const text = question.trim();
    if (!text) {
      setError("Type a question first.");
      return;
    }
    stop.current?.abort();
    const controller = new AbortController();
    stop.current = controller;
    setError("");
    setAnswer(null);
    setAsking(true);
    setProgress({ childId: null, phase: "", searches: [] });
    const known = new Set((await listFollowUps(props.runId).catch(() => earlier)).map((r) => r.id));
    watch(known, controller.signal);
    try {
      const result = await api<FollowUpAnswer>("/v1/ask", {
        method: "POST",
        body: { question: text, about: props.runId },
      });
      setAnswer(result);
      setQuestion("");
    } catch (err) {
      setError((err as Error).message);
    } finally {
      controller.abort();
      setAsking(false);
      setProgress(null);
      listFollowUps(props.runId).then(setEarlier, () => {});
    }
  };

  return (
    <section aria-labelledby="follow-up-h" class="follow-up" data-testid="follow-up">
      <h2 id="follow-up-h">Ask a follow-up</h2>
      <p class="hint">
        Answered from this run's evidence first, cited with the report's numbers; it searches only when that
        evidence does not answer it.
      </p>
      <form onSubmit={ask} class="row">
        <label for="follow-up-q" class="grow">
          Follow-up question
          <input
            id="follow-up-q"
            type="text"
            maxLength={4000}
            value={question}
            onInput={(e) => setQuestion((e.target as HTMLInputElement).value)}
            disabled={asking}
          />
        </label>
        <button type="submit" disabled={asking}>
          Ask
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {asking && progress && <AskProgress progress={progress} />}
      {answer && <Answer answer={answer} reportNumbers={props.reportNumbers} />}
      {earlier.length > 0 && (
        <div class="follow-ups">
          <h3>Follow-ups of this run</h3>
          <ul data-testid="follow-up-runs">
            {earlier.map((r) => (
              <li key={r.id} data-run={r.id}>
                <Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.query}</Link>{" "}
                <span class={`badge ${r.status}`}>{r.status}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function AskProgress(props: { progress: Progress }) {
  const { childId, phase, searches } = props.progress;
  return (
    <div class="follow-up-progress" role="status" data-testid="follow-up-progress">
      <progress aria-label="Follow-up progress" />
      <span>
        Answering…{phase && ` ${phase}`}
        {searches.length > 0 && ` · searching: ${searches.join("; ")}`}
      </span>
      {childId && (
        <span class="hint">
          {" "}
          · run <Link href={`/runs/${encodeURIComponent(childId)}`}>{childId}</Link>
        </span>
      )}
    </div>
  );
}

function Answer(props: { answer: FollowUpAnswer; reportNumbers: ReadonlySet<number> }) {
  const { answer, reportNumbers } = props;
  const cite = (n: number) => {
    const href = citationHref(n, reportNumbers, answer.citations);
    if (!href) return <span>{n}</span>;
    const external = !href.startsWith("#");
    return (
      <a class="cite" href={href} {...(external ? { rel: "noopener noreferrer", target: "_blank" } : {})}>
        {n}
      </a>
    );
  };
  const searches = answer.searches ?? [];
  return (
    <div class="follow-up-answer" data-testid="follow-up-answer" aria-live="polite">
      <p class="answer-text">
        {answer.answer
          ? answerPieces(answer.answer).map((p, i) =>
              "text" in p ? (
                <span key={i}>{p.text}</span>
              ) : (
                <sup key={i} class="cites">
                  [
                  {p.numbers.map((n, j) => (
                    <span key={n}>
                      {j > 0 && ", "}
                      {cite(n)}
                    </span>
                  ))}
                  ]
                </sup>
              ),
            )
          : `No answer (${answer.status}${answer.stopReason ? `: ${answer.stopReason}` : ""}).`}
      </p>
      {answer.citations.length > 0 && (
        <ol class="follow-up-refs" data-testid="follow-up-citations">
          {answer.citations.map((c) => (
            <CitationItem key={c.number} citation={c} inReport={reportNumbers.has(c.number)} />
          ))}
        </ol>
      )}
      <p class="hint" data-testid="follow-up-searches">
        {searches.length === 0
          ? "No search: answered from this run's evidence."
          : `Searches: ${searches.map((s) => `“${s.query}” (${s.ok ? `${s.results} results` : "failed"})`).join(", ")}`}
      </p>
      <p class="hint">
        Follow-up run <Link href={`/runs/${encodeURIComponent(answer.runId)}`}>{answer.runId}</Link>
      </p>
    </div>
  );
}

function CitationItem(props: { citation: FollowUpCitation; inReport: boolean }) {
  const { citation: c, inReport } = props;
  const url = httpUrl(c.locator);
  return (
    <li value={c.number} data-number={c.number}>
      {inReport ? <a href={`#ref-${c.number}`}>[{c.number}]</a> : `[${c.number}]`} {c.title}
      {url ? (
        <>
          {" — "}
          <a href={url} rel="noopener noreferrer" target="_blank">
            {url}
          </a>
        </>
      ) : (
        c.locator && (
          <>
            {" — "}
            <code>{c.locator}</code>
          </>
        )
      )}
      {!inReport && <span class="hint"> (new source)</span>}
    </li>
  );
}
