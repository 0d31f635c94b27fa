import { fakeOllama } from "./fake-ollama";
import { FAKE_WEB_URL } from "./servers";

/** How the research e2e specs script the fake Ollama (docs/research.md, "Research mode"). */

export const QUOKKA = `${FAKE_WEB_URL}/quokka.html`;

export const BRIEF = {
  goal: "Where quokkas live and what they eat",
  scope: "Wild quokkas today",
  sections: [
    { id: "s1", title: "Habitat", questions: ["Where do quokkas live?"] },
    { id: "s2", title: "Diet", questions: ["What do quokkas eat?"] },
    { id: "s3", title: "Predators", questions: ["What hunts quokkas?"] },
  ],
  clarifying_questions: [],
};

/** The brief the reasoning role proposes (a structured call: the make_brief tool). */
export function scriptBrief() {
  return fakeOllama.script({
    when: { lastUserIncludes: "Request:\n" },
    toolCalls: [{ name: "make_brief", arguments: BRIEF }],
  });
}

/** A section's research: one page read, then its notes. */
export const gather = (title: string, url: string, notes: string) => [
  {
    when: { lastUserIncludes: `Section: ${title}\nIt must answer` },
    toolCalls: [{ name: "scrape_url", arguments: { url } }],
  },
  { when: { lastUserIncludes: `Section: ${title}\nIt must answer` }, content: notes },
];

/** A section's writing (`extra`: chunks and their delay, to be seen streaming). */
export const write = (title: string, text: string, extra: Record<string, unknown> = {}) => ({
  when: { lastUserIncludes: `Section: ${title}\nQuestions it answers` },
  content: text,
  ...extra,
});

/** The summary written on top of the report. */
export const summary = (text: string) => ({ when: { lastUserIncludes: "The report:\n" }, content: text });
