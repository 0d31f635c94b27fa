import { MessageCircleQuestion } from "lucide-react";
import { useTranslations } from "use-intl";

/**
 * The clarifying questions a research run asked instead of a brief (`research_brief` of kind
 * `questions`): the user answers in a normal message, and the next research turn makes the brief.
 */
export function QuestionsCard({ questions }: { questions: string[] }) {
  const t = useTranslations("research.questions");
  return (
    <section
      data-testid="research-questions"
      aria-label={t("label")}
      className="rounded-xl border border-border bg-muted/30 p-3"
    >
      <h3 className="flex items-center gap-1.5 text-xs font-medium uppercase tracking-wide text-muted-foreground">
        <MessageCircleQuestion aria-hidden className="size-3.5" />
        {t("label")}
      </h3>
      <p className="mt-1.5 text-sm">{t("intro")}</p>
      <ol className="mt-1.5 list-decimal pl-5 text-sm">
        {questions.map((question, index) => (
          <li key={index} data-testid="research-question" className="py-0.5">
            {question}
          </li>
        ))}
      </ol>
      <p className="mt-2 text-xs text-muted-foreground">{t("reply")}</p>
    </section>
  );
}
