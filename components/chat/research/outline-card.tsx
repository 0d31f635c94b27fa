"use client";

import { ArrowDown, ArrowUp, Loader2, Play, Plus, Trash2 } from "lucide-react";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { useTranslations } from "use-intl";
import { cx } from "@/lib/client/cx";
import { RESEARCH_MAX_SECTIONS, RESEARCH_MIN_SECTIONS, type ResearchBrief } from "@/lib/protocol/research";
import {
  addSection,
  briefFromDraft,
  canAddSection,
  canDropSection,
  type DraftSection,
  draftFromBrief,
  dropSection,
  editSection,
  MAX_GOAL_CHARS,
  MAX_TITLE_CHARS,
  moveSection,
  type OutlineDraft,
  type OutlineProblem,
  outlineProblems,
} from "./outline-draft";

const CARD = "rounded-xl border border-border bg-muted/30 p-3";
const HEADING = "text-xs font-medium uppercase tracking-wide text-muted-foreground";
const FIELD =
  "w-full rounded-lg border border-border bg-card px-2.5 py-1.5 text-sm outline-none focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring";
const ICON_BUTTON =
  "grid size-8 shrink-0 place-items-center rounded-lg text-muted-foreground transition-colors hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring aria-disabled:cursor-not-allowed aria-disabled:opacity-40 aria-disabled:hover:bg-transparent";

/** How the card may start the research: the send, or why it cannot now (a run works, the outline is not stored yet). */
export type OutlineStart = { onStart: (brief: ResearchBrief) => Promise<string | null> } | { waiting: string };

/**
 * The brief a research run proposed (`research_brief` of kind `brief`), as the outline card: its
 * goal, scope and sections with their questions. The newest one is a form — sections reordered
 * (buttons, so the keyboard can), renamed, dropped, added within 3 to 8, questions edited — and
 * Start research sends it; an older one, or one already researched, is shown as it was.
 */
export function OutlineCard({ brief, start }: { brief: ResearchBrief; start: OutlineStart | null }) {
  return start ? <OutlineForm brief={brief} start={start} /> : <OutlineView brief={brief} />;
}

function OutlineView({ brief }: { brief: ResearchBrief }) {
  const t = useTranslations("research.outline");
  return (
    <section data-testid="outline-card" data-editable="false" aria-label={t("label")} className={CARD}>
      <h3 className={HEADING}>{t("label")}</h3>
      <dl className="mt-2 grid gap-1 text-sm">
        <dt className="font-medium">{t("goal")}</dt>
        <dd data-testid="outline-goal">{brief.goal}</dd>
        <dt className="mt-1 font-medium">{t("scope")}</dt>
        <dd className="text-muted-foreground">{brief.scope || t("scopeOpen")}</dd>
      </dl>
      <ol className="mt-3 flex flex-col gap-1.5">
        {brief.sections.map((section, index) => (
          <li
            key={section.id}
            data-testid="outline-section"
            data-section-id={section.id}
            className="rounded-lg border border-border bg-card px-3 py-2 text-sm"
          >
            <p className="font-medium">
              <span className="mr-1.5 text-muted-foreground">{index + 1}.</span>
              {section.title}
            </p>
            <ul className="mt-1 list-disc pl-5 text-muted-foreground">
              {section.questions.map((question, index) => (
                <li key={index}>{question}</li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
}

function problemText(
  t: ReturnType<typeof useTranslations<"research.outline">>,
  problem: OutlineProblem,
  draft: OutlineDraft,
) {
  const number = (id: string) => draft.sections.findIndex((section) => section.id === id) + 1;
  switch (problem.kind) {
    case "goal_empty":
      return t("problem.goal_empty");
    case "goal_too_long":
      return t("problem.goal_too_long", { max: problem.max });
    case "too_few_sections":
      return t("problem.too_few_sections", { min: problem.min });
    case "too_many_sections":
      return t("problem.too_many_sections", { max: problem.max });
    case "title_empty":
      return t("problem.title_empty", { number: number(problem.sectionId) });
    case "no_questions":
      return t("problem.no_questions", { number: number(problem.sectionId) });
    case "too_many_questions":
      return t("problem.too_many_questions", { number: number(problem.sectionId), max: problem.max });
    case "too_long":
      return t("problem.too_long", { number: number(problem.sectionId), max: problem.max });
  }
}

function OutlineForm({ brief, start }: { brief: ResearchBrief; start: OutlineStart }) {
  const t = useTranslations("research.outline");
  const [draft, setDraft] = useState<OutlineDraft>(() => draftFromBrief(brief));
  // Why the last Add or Drop did nothing: the bound it hit, said until the next change.
  const [bound, setBound] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The button that moved a section keeps the focus as the section moves (a list re-ordered in the DOM can lose it).
  const [moved, setMoved] = useState<{ id: string; step: -1 | 1 } | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const [added, setAdded] = useState<string | null>(null);
  const id = useId();
  const problems = outlineProblems(draft);

  useEffect(() => {
    if (!moved) return;
    const selector = `[data-section-id="${CSS.escape(moved.id)}"] [data-move="${moved.step}"]`;
    form.current?.querySelector<HTMLElement>(selector)?.focus();
  }, [moved]);
  // A section added is ready to be named.
  useEffect(() => {
    if (!added) return;
    form.current?.querySelector<HTMLInputElement>(`[data-section-id="${CSS.escape(added)}"] input`)?.focus();
  }, [added]);

  const change = (next: OutlineDraft) => {
    setDraft(next);
    setBound(null);
    setError(null);
  };

  const onAdd = () => {
    if (!canAddSection(draft)) {
      setBound(t("atMost", { max: RESEARCH_MAX_SECTIONS }));
      return;
    }
    const next = addSection(draft, "");
    change(next);
    setAdded(next.sections.at(-1)?.id ?? null);
  };

  const onDrop = (section: DraftSection) => {
    if (!canDropSection(draft)) {
      setBound(t("atLeast", { min: RESEARCH_MIN_SECTIONS }));
      return;
    }
    change(dropSection(draft, section.id));
  };

  const onMove = (section: DraftSection, step: -1 | 1) => {
    change(moveSection(draft, section.id, step));
    setMoved({ id: section.id, step });
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!("onStart" in start) || starting) return;
    const result = briefFromDraft(draft);
    if (!result.ok) return;
    setStarting(true);
    setError(null);
    const failure = await start.onStart(result.brief);
    setStarting(false);
    setError(failure);
  };

  const waiting = "waiting" in start ? start.waiting : null;
  const disabled = waiting !== null || problems.length > 0 || starting;
  const last = draft.sections.length - 1;

  return (
    <form
      ref={form}
      data-testid="outline-card"
      data-editable="true"
      aria-label={t("label")}
      onSubmit={(event) => void onSubmit(event)}
      className={CARD}
    >
      <h3 className={HEADING}>{t("label")}</h3>
      <p className="mt-1 text-sm text-muted-foreground">{t("intro")}</p>
      <label className="mt-3 block text-sm font-medium" htmlFor={`${id}-goal`}>
        {t("goal")}
      </label>
      <textarea
        id={`${id}-goal`}
        data-testid="outline-goal"
        rows={2}
        maxLength={MAX_GOAL_CHARS}
        value={draft.goal}
        onChange={(event) => change({ ...draft, goal: event.target.value })}
        className={cx(FIELD, "mt-1 resize-y")}
      />
      <label className="mt-2 block text-sm font-medium" htmlFor={`${id}-scope`}>
        {t("scope")}
      </label>
      <textarea
        id={`${id}-scope`}
        data-testid="outline-scope"
        rows={2}
        maxLength={MAX_GOAL_CHARS}
        value={draft.scope}
        placeholder={t("scopeOpen")}
        onChange={(event) => change({ ...draft, scope: event.target.value })}
        className={cx(FIELD, "mt-1 resize-y")}
      />
      <div className="mt-3 flex items-baseline justify-between gap-2">
        <h4 className="text-sm font-medium">{t("sections")}</h4>
        <span data-testid="outline-bounds" className="text-xs text-muted-foreground">
          {t("bounds", { count: draft.sections.length, min: RESEARCH_MIN_SECTIONS, max: RESEARCH_MAX_SECTIONS })}
        </span>
      </div>
      <ol className="mt-1.5 flex flex-col gap-2">
        {draft.sections.map((section, index) => {
          const number = index + 1;
          return (
            <li
              key={section.id}
              data-testid="outline-section"
              data-section-id={section.id}
              className="rounded-lg border border-border bg-card p-2"
            >
              <div className="flex items-center gap-1">
                <span aria-hidden className="w-5 shrink-0 text-center text-sm text-muted-foreground">
                  {number}
                </span>
                <input
                  data-testid="outline-section-title"
                  aria-label={t("sectionTitle", { number })}
                  maxLength={MAX_TITLE_CHARS}
                  value={section.title}
                  placeholder={t("newSection")}
                  onChange={(event) => change(editSection(draft, section.id, { title: event.target.value }))}
                  className={cx(FIELD, "min-w-0 flex-1 font-medium")}
                />
                <button
                  type="button"
                  data-testid="outline-move-up"
                  data-move="-1"
                  aria-label={t("moveUp", { number })}
                  title={t("moveUp", { number })}
                  aria-disabled={index === 0 || undefined}
                  onClick={() => (index === 0 ? undefined : onMove(section, -1))}
                  className={ICON_BUTTON}
                >
                  <ArrowUp aria-hidden className="size-4" />
                </button>
                <button
                  type="button"
                  data-testid="outline-move-down"
                  data-move="1"
                  aria-label={t("moveDown", { number })}
                  title={t("moveDown", { number })}
                  aria-disabled={index === last || undefined}
                  onClick={() => (index === last ? undefined : onMove(section, 1))}
                  className={ICON_BUTTON}
                >
                  <ArrowDown aria-hidden className="size-4" />
                </button>
                <button
                  type="button"
                  data-testid="outline-drop"
                  aria-label={t("drop", { number })}
                  title={t("drop", { number })}
                  aria-disabled={!canDropSection(draft) || undefined}
                  onClick={() => onDrop(section)}
                  className={cx(ICON_BUTTON, "hover:text-red-700 dark:hover:text-red-300")}
                >
                  <Trash2 aria-hidden className="size-4" />
                </button>
              </div>
              <textarea
                data-testid="outline-questions"
                aria-label={t("questionsOf", { number })}
                rows={Math.max(2, section.questions.split("\n").length)}
                value={section.questions}
                placeholder={t("questions")}
                onChange={(event) => change(editSection(draft, section.id, { questions: event.target.value }))}
                className={cx(FIELD, "mt-1.5 resize-y sm:ml-6 sm:w-[calc(100%-1.5rem)]")}
              />
            </li>
          );
        })}
      </ol>
      <button
        type="button"
        data-testid="outline-add"
        aria-disabled={!canAddSection(draft) || undefined}
        onClick={onAdd}
        className="mt-2 inline-flex items-center gap-1.5 rounded-lg px-2.5 py-1.5 text-sm text-muted-foreground transition-colors hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring aria-disabled:cursor-not-allowed aria-disabled:opacity-50"
      >
        <Plus aria-hidden className="size-4" />
        {t("add")}
      </button>
      <div aria-live="polite" className="mt-2 flex flex-col gap-1 empty:hidden">
        {bound ? (
          <p data-testid="outline-bound" className="text-sm text-amber-800 dark:text-amber-300">
            {bound}
          </p>
        ) : null}
        {problems.length > 0 ? (
          <ul data-testid="outline-problems" className="list-disc pl-5 text-sm text-red-700 dark:text-red-300">
            {problems.map((problem) => (
              <li key={`${problem.kind}:${"sectionId" in problem ? problem.sectionId : ""}`}>
                {problemText(t, problem, draft)}
              </li>
            ))}
          </ul>
        ) : null}
        {error ? (
          <p role="alert" data-testid="outline-error" className="text-sm text-red-700 dark:text-red-300">
            {error}
          </p>
        ) : null}
      </div>
      <div className="mt-3 flex flex-wrap items-center justify-end gap-2">
        {waiting ? <span className="text-xs text-muted-foreground">{waiting}</span> : null}
        <button
          type="submit"
          data-testid="outline-start"
          disabled={disabled}
          className="inline-flex h-9 items-center gap-1.5 rounded-full bg-primary px-4 text-sm font-medium text-primary-foreground transition-opacity hover:opacity-90 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50"
        >
          {starting ? <Loader2 aria-hidden className="size-4 animate-spin" /> : <Play aria-hidden className="size-4" />}
          {starting ? t("starting") : t("start")}
        </button>
      </div>
    </form>
  );
}
