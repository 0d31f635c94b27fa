"use client";

import { Search, X } from "lucide-react";
import { useEffect, useState } from "react";
import { useTranslations } from "use-intl";
import { SEARCH_ID } from "@/components/shell/focus-targets";
import { useConversations } from "./conversations-context";

const DEBOUNCE_MS = 250;

/** Searches conversation titles and content; the list follows after a short pause in typing. */
export function SearchBox() {
  const t = useTranslations("sidebar");
  const { query, setQuery } = useConversations();
  const [text, setText] = useState(query);

  useEffect(() => {
    const timer = setTimeout(() => setQuery(text.trim()), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, setQuery]);

  return (
    <div className="relative">
      <Search
        aria-hidden
        className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground"
      />
      <input
        type="search"
        id={SEARCH_ID}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && text) {
            event.stopPropagation();
            setText("");
          }
        }}
        placeholder={t("searchPlaceholder")}
        aria-label={t("searchLabel")}
        data-testid="conversation-search"
        className="w-full rounded-lg border border-transparent bg-muted/70 py-1.5 pr-8 pl-8 text-sm placeholder:text-muted-foreground focus:border-border focus:bg-background focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring [&::-webkit-search-cancel-button]:hidden"
      />
      {text ? (
        <button
          type="button"
          aria-label={t("clearSearch")}
          onClick={() => setText("")}
          className="absolute top-1/2 right-1.5 grid size-6 -translate-y-1/2 place-items-center rounded-md text-muted-foreground hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
        >
          <X aria-hidden className="size-3.5" />
        </button>
      ) : null}
    </div>
  );
}
